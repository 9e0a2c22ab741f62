// The migration of the table this library owns in every service's schema that takes
// Idempotency-Keys. Each service lists it in its own migration index under the name it first
// recorded it with, so it stays one definition here instead of a copy per service.
import type { Migration } from "@support/db";
import type { Kysely } from "kysely";
import { createIdempotencyKeysTable, dropIdempotencyKeysTable } from "./store.ts";

export const createIdempotencyKeysMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await createIdempotencyKeysTable(db);
  },
  async down(db: Kysely<unknown>) {
    await dropIdempotencyKeysTable(db);
  },
};
