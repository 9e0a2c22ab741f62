// The outbox keeps the W3C traceparent of the transaction that wrote each event, so that the
// relay and the consumers continue that trace (nullable: rows written outside a trace have none).
import { addOutboxTraceparent, dropOutboxTraceparent } from "@support/bus";
import type { Kysely } from "@support/db";

export async function up(db: Kysely<unknown>): Promise<void> {
  await addOutboxTraceparent(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropOutboxTraceparent(db);
}
