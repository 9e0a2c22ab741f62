// A kysely instance over a pool that tolerates its connections being cut. Tests drop their
// database WITH (FORCE) right after the pool ends; pg-pool ends clients without waiting, and
// a client cut while closing makes the pool emit "error", which without a listener is an
// uncaught exception. (libs/db is gaining such a listener in createPool; this one keeps the
// tests independent of it.)
import { Kysely, PostgresDialect } from "kysely";
import { createPool } from "@support/db";
import type { ContentDatabase } from "../src/database.ts";

export function createTestDb(url: string, maxConnections = 5): Kysely<ContentDatabase> {
  const pool = createPool({ url, schema: "content", maxConnections });
  pool.on("error", () => undefined);
  return new Kysely<ContentDatabase>({ dialect: new PostgresDialect({ pool }) });
}
