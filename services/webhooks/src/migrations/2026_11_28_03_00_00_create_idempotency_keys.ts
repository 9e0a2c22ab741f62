import type { Kysely } from "@support/db";
import { createIdempotencyKeysTable, dropIdempotencyKeysTable } from "@support/idempotency";

export async function up(db: Kysely<unknown>): Promise<void> {
  await createIdempotencyKeysTable(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropIdempotencyKeysTable(db);
}
