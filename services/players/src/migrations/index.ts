// Every migration of the players schema, in order. Migrations never import application code.
import type { Migration } from "@support/db";
import * as createOutbox from "./2026_11_22_00_00_00_create_outbox.ts";
import * as createPlayers from "./2026_11_22_01_00_00_create_players.ts";
import * as createSupportSessions from "./2026_11_24_00_00_00_create_support_sessions.ts";
import * as createPlayerDeletion from "./2026_11_25_00_00_00_create_player_deletion.ts";
import * as addOutboxTraceparent from "./2026_11_26_00_00_00_add_outbox_traceparent.ts";
import * as createIdempotencyKeys from "./2026_11_27_00_00_00_create_idempotency_keys.ts";
import * as createEmailVerifications from "./2026_11_28_00_00_00_create_email_verifications.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_00_00_create_outbox": createOutbox,
  "2026_11_22_01_00_00_create_players": createPlayers,
  "2026_11_24_00_00_00_create_support_sessions": createSupportSessions,
  "2026_11_25_00_00_00_create_player_deletion": createPlayerDeletion,
  "2026_11_26_00_00_00_add_outbox_traceparent": addOutboxTraceparent,
  "2026_11_27_00_00_00_create_idempotency_keys": createIdempotencyKeys,
  "2026_11_28_00_00_00_create_email_verifications": createEmailVerifications,
};
