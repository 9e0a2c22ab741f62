// Test infrastructure resolution (Postgres, NATS JetStream, S3) shared by every package's
// tests and by scripts/up.ts.
export { createTestInfra } from "./infra.ts";
export type { TestInfra } from "./infra.ts";
export {
  LOCAL_POSTGRES_PORT,
  createTestDatabase,
  databaseIdentity,
  dropDatabase,
  ensureDatabase,
  findPostgresBinDir,
  postgresAnswers,
  postgresUrl,
  RELOCATED_POSTGRES_ROOT,
  relocatedDataDir,
  removePostgresDataDir,
  ensureTemplateDatabase,
  resolvePostgres,
  startPostgresServer,
  withDatabase,
} from "./postgres.ts";
export type {
  DatabaseTemplate,
  InfraSource,
  PostgresServer,
  PostgresServerOptions,
  ResolveOptions,
  ResolvedPostgres,
  TestDatabase,
} from "./postgres.ts";
export {
  LOCAL_NATS_PORT,
  deleteStreamsMatching,
  deleteStreamsWithPrefix,
  findNatsServer,
  listStreams,
  natsJetStreamAnswers,
  resolveNats,
  startNatsServer,
  streamHasPrefix,
} from "./nats.ts";
export type { NatsServer, NatsServerOptions, ResolvedNats } from "./nats.ts";
export {
  DEFAULT_TEST_BUCKET,
  S3RVER_CREDENTIALS,
  allowBrowserOrigins,
  createS3Client,
  ensureBucket,
  resolveS3,
  startS3rver,
} from "./s3.ts";
export type { ResolvedS3, S3Settings, S3rverOptions, S3rverServer } from "./s3.ts";
export { containerEngineAnswers } from "./containers.ts";
export { freePort, isRoot, lookupUser, portIsFree, randomId, tcpAnswers, waitFor } from "./net.ts";
export { testInfraGlobalSetup } from "./vitest.ts";
export { startSmtpReceiver } from "./smtp.ts";
export { startWebhookReceiver } from "./webhook-receiver.ts";
export type { ReceivedRequest, WebhookReceiver, WebhookReceiverOptions } from "./webhook-receiver.ts";
export type { ReceivedMail, SmtpReceiver } from "./smtp.ts";
export { IDENTITY_PROCESSES, createTestServiceIdentities } from "./identity.ts";
export type { IdentityProcess, TestServiceIdentities } from "./identity.ts";
