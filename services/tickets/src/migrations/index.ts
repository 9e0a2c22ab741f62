// Every migration of the tickets schema, in order. Migrations never import application code.
import type { Migration } from "@support/db";
import * as createOutbox from "./2026_11_22_00_00_00_create_outbox.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_00_00_create_outbox": createOutbox,
};
