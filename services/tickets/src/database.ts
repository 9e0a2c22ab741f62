// Tables of the tickets schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { TicketBreadcrumbTables } from "./breadcrumbs/breadcrumb.table.ts";
import type { ErasedPlayerTables } from "./erasure/erased-player.table.ts";
import type { PlayerTicketReadTables, SessionTicketTables } from "./player-side/session-ticket.table.ts";
import type { TicketEventTables } from "./ticket-events/event.table.ts";
import type { TicketReadTables } from "./reads/ticket-read.table.ts";
import type { SavedViewTables } from "./saved-views/saved-view.table.ts";
import type { TicketTables } from "./tickets/ticket.table.ts";
import type { RoutingTables } from "./routing/routing.table.ts";
import type { OutbreakTables } from "./outbreaks/outbreaks.table.ts";
import type { TriageTables } from "./triage/triage.table.ts";
import type { RuleTables } from "./rules/rule.table.ts";
import type { SlaTables } from "./sla/sla.table.ts";

export type TicketsDatabase = OutboxTable & TicketTables & TicketEventTables & TicketReadTables & SavedViewTables & TicketBreadcrumbTables & ErasedPlayerTables & SessionTicketTables & PlayerTicketReadTables & RoutingTables & OutbreakTables & TriageTables & RuleTables & SlaTables;
