// What a ticket is: its value types, the enumerations of the public API, and the
// shapes the service layer passes around. The state machine lives in ticket-state.ts.
import type { EventData } from "@support/events";

export const TICKET_STATUSES = ["new", "assigned", "unassigned", "waiting", "on_hold", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const RESOLUTION_TYPES = ["resolved", "rejected", "auto_closed", "merged"] as const;
export type ResolutionType = (typeof RESOLUTION_TYPES)[number];

export const SUPPORT_SOURCES = [
  "IN_APP", "WIDGET", "EMAIL", "MESSENGER", "WEB", "API", "STARTED_BY_AGENT", "TEST_GENERATED", "MIGRATED",
] as const;
export type SupportSource = (typeof SUPPORT_SOURCES)[number];

export const CHANNELS = ["chat", "email", "messenger"] as const;
export type Channel = (typeof CHANNELS)[number];

export const PLATFORMS = [
  "ios", "android", "win", "macos", "linux", "web", "playstation_4", "playstation_5", "switch", "switch_2",
  "xbox_series", "xbox_one", "not_specified",
] as const;
export type Platform = (typeof PLATFORMS)[number];

export const LANGUAGES = [
  "en", "de", "es", "es-AR", "es-MX", "fi", "fil", "fr", "id", "ja", "ko", "ms", "pt", "pt-BR", "ru", "tr", "uk", "vi",
  "zh", "zh-Hans", "zh-Hant", "ar", "cs", "da", "nl", "el", "hu", "it", "no", "nb", "pl", "ro", "sk", "sv", "th",
] as const;
export type Language = (typeof LANGUAGES)[number];

export const PLAYER_TIERS = [1, 2, 3] as const;

/** A custom field or metadata value: string, number, array of strings or boolean. */
export type FieldValue = string | number | boolean | string[];
export type FieldValues = Record<string, FieldValue>;

/** Who performed a change; recorded on events (audit) and in domain events. */
export type Actor =
  | { type: "user"; id: string }
  | { type: "api_key"; id: string | null }
  | { type: "player"; id: string | null }
  | { type: "system"; id: string };

export interface Ticket {
  id: string;
  companyId: string;
  runningId: number;
  gameId: string;
  gameEnvironmentId: string;
  servicePlayerId: string | null;
  playerId: string | null;
  playerName: string | null;
  email: string | null;
  status: TicketStatus;
  supportSource: SupportSource | null;
  channels: Channel[];
  language: Language;
  platform: Platform;
  resolutionType: ResolutionType | null;
  csatScore: number | null;
  csatReview: string | null;
  issueSummary: string | null;
  issueResolution: string | null;
  followUpTicketId: string | null;
  reopenedFromTicketId: string | null;
  createdAt: Date;
  lastActivityAt: Date | null;
  tags: string[];
  fields: FieldValues;
  metadata: FieldValues;
  assigneeId: string | null;
  waitingSince: Date | null;
  lastPlayerMessageAt: Date | null;
}

export function isOneOf<T extends string | number>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}

/** Escapes one JSON pointer reference token (RFC 6901). */
export function pointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The public link of a ticket: `<SUPPORT_APP_URL>/tickets/<id>`. */
export function ticketUrl(supportAppUrl: string, ticketId: string): string {
  return `${supportAppUrl.replace(/\/+$/, "")}/tickets/${ticketId}`;
}

/** The data of a domain event describing the ticket as a whole (tickets.ticket.created). */
/** The ticket as its public projection (the event contract's PublicTicket) plus its assignee. */
export function ticketEventData(ticket: Ticket, url: string): EventData<"tickets.ticket.created"> {
  return {
    id: ticket.id,
    runningId: ticket.runningId,
    url,
    gameId: ticket.gameId,
    gameEnvironmentId: ticket.gameEnvironmentId,
    servicePlayerId: ticket.servicePlayerId,
    playerId: ticket.playerId,
    playerName: ticket.playerName,
    email: ticket.email,
    status: ticket.status,
    supportSource: ticket.supportSource,
    channels: ticket.channels,
    language: ticket.language,
    resolutionType: ticket.resolutionType,
    csatScore: ticket.csatScore,
    csatReview: ticket.csatReview,
    issueSummary: ticket.issueSummary,
    issueResolution: ticket.issueResolution,
    followUpTicketId: ticket.followUpTicketId,
    reopenedFromTicketId: ticket.reopenedFromTicketId,
    assigneeId: ticket.assigneeId,
    createdAt: ticket.createdAt.toISOString(),
    lastActivityAt: ticket.lastActivityAt?.toISOString() ?? null,
    tags: ticket.tags,
    fields: ticket.fields,
    // A stored ticket always has its platform (creation sets it); the contract checks it again.
    metadata: ticket.metadata as EventData<"tickets.ticket.created">["metadata"],
  };
}
