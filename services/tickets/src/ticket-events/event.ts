// Ticket events: the six public types, returned by GET /tickets/{id}/events, and the
// internal types that audit actions (who changed what), which are stored but never returned.
import type { Actor, FieldValues, Language, ResolutionType, TicketStatus } from "../tickets/ticket.ts";

export const PUBLIC_EVENT_TYPES = ["PLAYER_MESSAGE", "AGENT_MESSAGE", "PRIVATE_NOTE", "CSAT", "END", "COLLECTOR_RESULT"] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

export interface AttachmentRef {
  id: string;
}

/** A collector answer as stored: `value` for every type but FILE, `attachments` for FILE. */
export interface CollectorField {
  key: string | null;
  label: string;
  type: "TEXT" | "SELECT_GROUP" | "DROPDOWN" | "DATE" | "EMAIL" | "CHECKBOX" | "PLATFORM_SELECTOR" | "FILE";
  value?: string | string[] | boolean | null;
  attachments?: AttachmentRef[];
}

/**
 * On a copy of another ticket's event, made when that ticket was merged into this one: which
 * ticket it came from, the event's id there and when it was written.
 */
export interface MergedFrom {
  ticketId: string;
  runningId: number;
  eventId: string;
  /** ISO 8601: when the event was first written (in the merged ticket, or before that, in one merged into it). */
  createdAt: string;
}

type Copied = { mergedFrom?: MergedFrom };

export type NewTicketEvent =
  | { type: "PLAYER_MESSAGE" | "AGENT_MESSAGE"; data: { message: string; language: Language; attachments: AttachmentRef[] } & Copied }
  | { type: "PRIVATE_NOTE"; data: { message: string; attachments: AttachmentRef[] } & Copied }
  | { type: "CSAT"; data: { score: number; review: string | null } }
  | { type: "END"; data: { resolutionType: Exclude<ResolutionType, "merged"> } }
  | { type: "COLLECTOR_RESULT"; data: { collectorId: string; resultId: string; title: string; fields: CollectorField[] } & Copied }
  // Internal: the audit trail of actions.
  | { type: "STATUS_CHANGED"; data: { from: TicketStatus; to: TicketStatus } }
  | { type: "ASSIGNEE_CHANGED"; data: { from: string | null; to: string | null } }
  | { type: "TAGS_CHANGED"; data: { added: string[]; removed: string[] } }
  | { type: "FIELDS_CHANGED"; data: { changed: FieldValues } }
  | { type: "PLAYER_INFO_CHANGED"; data: { name?: string; tier?: number } }
  | { type: "INCIDENT_LINKED"; data: { incidentId: string; similarity: number } };

/** An event ready to store: what happened and who did it. */
export type RecordedEvent = NewTicketEvent & { id: string; actor: Actor };

/** A stored public event as the events endpoint returns it, with who caused it. */
export type TicketEvent = { id: string; createdAt: Date; actor: Actor } & Extract<NewTicketEvent, { type: PublicEventType }>;
