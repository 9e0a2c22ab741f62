// Idempotency-Key support shared by the gateway (the key, the fingerprint, the headers) and the
// services (the record in the same transaction as the work, the Connect handler wrapper, the purge).
export {
  IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH, idempotencyKeyProblem,
  messageFingerprint, requestFingerprint, type RequestParts,
} from "./request.ts";
export {
  createIdempotencyKeysTable, dropIdempotencyKeysTable, idempotencyKeyInUse, idempotencyKeyReused, nestable, purgeIdempotencyKeysBatch,
  runIdempotent, type IdempotencyKeysTable, type ResponseSeal, type IdempotentOutcome, type IdempotentRequest, type RunOptions,
} from "./store.ts";
export { idempotent } from "./connect.ts";
export { createIdempotencyPurgeJob, createIdempotencyPurgeJobFromConfig, idempotencyConfigSpecs, type IdempotencyPurgeJob } from "./purge.job.ts";
export { createIdempotencyKeysMigration } from "./migrations.ts";
