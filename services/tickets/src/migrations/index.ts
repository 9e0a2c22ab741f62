// Every migration of the tickets schema, in order. Migrations never import application code; the
// outbox and idempotency tables come with the libraries that own them, under the names first recorded.
import type { Migration } from "@support/db";
import { addOutboxTraceparentMigration, createOutboxMigration } from "@support/bus";
import { createIdempotencyKeysMigration } from "@support/idempotency";
import * as createTickets from "./2026_11_23_00_00_00_create_tickets.ts";
import * as createErasedPlayers from "./2026_11_25_00_00_00_create_erased_players.ts";
import * as createSessionTickets from "./2026_11_28_00_00_00_create_session_tickets.ts";
import * as addAgentTicketLists from "./2026_11_29_00_00_00_add_agent_ticket_lists.ts";
import * as addTicketSearch from "./2026_11_30_00_00_00_add_ticket_search.ts";
import * as ticketReads from "./2026_11_30_00_01_00_ticket_reads.ts";
import * as savedViews from "./2026_11_30_00_02_00_saved_views.ts";
import * as searchByTicketBlocks from "./2026_12_01_00_00_00_search_by_ticket_blocks.ts";
import * as playerTicketReads from "./2026_12_05_00_00_00_player_ticket_reads.ts";
import * as routing from "./2026_12_07_00_00_00_routing.ts";
import * as outbreaks from "./2026_12_08_00_00_00_outbreaks.ts";
import * as triage from "./2026_12_08_00_00_00_triage.ts";
import * as rules from "./2026_12_09_00_00_00_rules.ts";
import * as ruleSource from "./2026_12_10_00_00_00_rule_source.ts";
import * as sla from "./2026_12_08_00_00_00_sla.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_00_00_create_outbox": createOutboxMigration,
  "2026_11_23_00_00_00_create_tickets": createTickets,
  "2026_11_25_00_00_00_create_erased_players": createErasedPlayers,
  "2026_11_26_00_00_00_add_outbox_traceparent": addOutboxTraceparentMigration,
  "2026_11_27_00_00_00_create_idempotency_keys": createIdempotencyKeysMigration,
  "2026_11_28_00_00_00_create_session_tickets": createSessionTickets,
  "2026_11_29_00_00_00_add_agent_ticket_lists": addAgentTicketLists,
  "2026_11_30_00_00_00_add_ticket_search": addTicketSearch,
  "2026_11_30_00_01_00_ticket_reads": ticketReads,
  "2026_11_30_00_02_00_saved_views": savedViews,
  "2026_12_01_00_00_00_search_by_ticket_blocks": searchByTicketBlocks,
  "2026_12_05_00_00_00_player_ticket_reads": playerTicketReads,
  "2026_12_07_00_00_00_routing": routing,
  "2026_12_08_00_00_00_outbreaks": outbreaks,
  "2026_12_08_00_00_00_triage": triage,
  "2026_12_09_00_00_00_rules": rules,
  "2026_12_08_00_00_00_sla": sla,
  "2026_12_10_00_00_00_rule_source": ruleSource,
};
