// The service side, in a Connect handler: one call around the use case. A request without an
// Idempotency-Key runs the use case as before.
import { toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { validationError } from "@support/errors";
import {
  IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyProblem, messageFingerprint,
} from "./request.ts";
import { runIdempotent, type RunOptions } from "./store.ts";

/**
 * Runs `work` (the use case, given the database handle to use) at most once per Idempotency-Key
 * of the request's company, answering a repeat with the first answer and the
 * `idempotent-replayed: true` response header. E.g.
 *
 *     createTicket: (req, context) => idempotent(ctx.db, req, context, (db) => createTicket({ ...ctx, db }, input(req))),
 */
export async function idempotent<DB, Response>(
  db: Kysely<DB>,
  request: { companyId: string },
  context: HandlerContext,
  work: (db: Kysely<DB>) => Promise<Response>,
  options: RunOptions = {},
): Promise<Response> {
  const key = context.requestHeader.get(IDEMPOTENCY_KEY_HEADER);
  if (key === null) return work(db);
  const problem = idempotencyKeyProblem(key);
  if (problem !== undefined) throw validationError([{ path: "/header/Idempotency-Key", message: problem }]);
  const schema = context.method.output as DescMessage;
  const fingerprint =
    context.requestHeader.get(IDEMPOTENCY_FINGERPRINT_HEADER) ??
    messageFingerprint(`${context.service.typeName}/${context.method.name}`, toBinary(context.method.input as DescMessage, request as never));
  const outcome = await runIdempotent(
    db,
    { companyId: request.companyId, key, fingerprint },
    schema,
    (handle) => work(handle) as Promise<MessageInitShape<DescMessage>>,
    options,
  );
  if (outcome.replayed) context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true");
  // The answer is the message of the method's own output type (decoded, or built from the work's answer).
  return outcome.response as Response;
}
