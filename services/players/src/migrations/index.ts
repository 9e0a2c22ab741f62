// Every migration of the players schema, in order. Migrations never import application code; the
// outbox and idempotency tables come with the libraries that own them, under the names first recorded.
import type { Migration } from "@support/db";
import { addOutboxTraceparentMigration, createOutboxMigration } from "@support/bus";
import { createIdempotencyKeysMigration } from "@support/idempotency";
import * as createPlayers from "./2026_11_22_01_00_00_create_players.ts";
import * as createSupportSessions from "./2026_11_24_00_00_00_create_support_sessions.ts";
import * as createPlayerDeletion from "./2026_11_25_00_00_00_create_player_deletion.ts";
import * as createEmailVerifications from "./2026_11_28_00_00_00_create_email_verifications.ts";
import * as playerSettings from "./2026_12_05_00_00_00_player_settings.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_00_00_create_outbox": createOutboxMigration,
  "2026_11_22_01_00_00_create_players": createPlayers,
  "2026_11_24_00_00_00_create_support_sessions": createSupportSessions,
  "2026_11_25_00_00_00_create_player_deletion": createPlayerDeletion,
  "2026_11_26_00_00_00_add_outbox_traceparent": addOutboxTraceparentMigration,
  "2026_11_27_00_00_00_create_idempotency_keys": createIdempotencyKeysMigration,
  "2026_11_28_00_00_00_create_email_verifications": createEmailVerifications,
  "2026_12_05_00_00_00_player_settings": playerSettings,
};
