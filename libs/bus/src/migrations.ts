// The migrations of the tables this library owns in every service's schema: the outbox, then its
// traceparent column. Each service lists them in its own migration index under the names it
// first recorded them with (the names are what kysely_migration remembers), so they stay one
// definition here instead of a copy per service.
import type { Migration } from "@support/db";
import type { Kysely } from "kysely";
import { addOutboxTraceparent, createOutboxTable, dropOutboxTraceparent } from "./outbox.ts";

/** Creates the outbox table (first on the schema's search_path). */
export const createOutboxMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutboxTable(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("outbox").execute();
  },
};

/** The outbox's nullable `traceparent`: the trace context the relay sends on as a NATS header. */
export const addOutboxTraceparentMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await addOutboxTraceparent(db);
  },
  async down(db: Kysely<unknown>) {
    await dropOutboxTraceparent(db);
  },
};
