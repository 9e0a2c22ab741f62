// Every migration of the content schema, in order. Migrations never import application code.
import type { Migration } from "@support/db";
import * as createContent from "./2026_11_22_00_01_00_create_content.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_01_00_create_content": createContent,
};
