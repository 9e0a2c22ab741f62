// Every migration of the email schema, in order. Migrations never import application code; the
// outbox table comes with the library that owns it.
import type { Migration } from "@support/db";
import { addOutboxTraceparentMigration, createOutboxMigration } from "@support/bus";
import * as createMails from "./2026_12_01_01_00_00_create_mails.ts";
import * as createInboundMails from "./2026_12_01_02_00_00_create_inbound_mails.ts";
import * as createRatingLinks from "./2026_12_01_03_00_00_create_rating_links.ts";
import * as createGames from "./2026_12_01_04_00_00_create_games.ts";
import * as mailFromAddress from "./2026_12_01_05_00_00_mail_from_address.ts";

export const migrations: Record<string, Migration> = {
  "2026_12_01_00_00_00_create_outbox": createOutboxMigration,
  "2026_12_01_00_01_00_add_outbox_traceparent": addOutboxTraceparentMigration,
  "2026_12_01_01_00_00_create_mails": createMails,
  "2026_12_01_02_00_00_create_inbound_mails": createInboundMails,
  "2026_12_01_03_00_00_create_rating_links": createRatingLinks,
  "2026_12_01_04_00_00_create_games": createGames,
  "2026_12_01_05_00_00_mail_from_address": mailFromAddress,
};
