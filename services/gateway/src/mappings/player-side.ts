// The player side between REST and tickets.v1: the player's view of a ticket, and the bodies
// of the player's messages, breadcrumbs and collector results. tickets.v1 carries the
// document's enums as strings; the tickets service only stores the document's values, so they
// are narrowed with `as` (the integration tests check every response against the document).
import { fromJson } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { AddCollectorResultRequestSchema, PlayerConversationActivity, TicketBreadcrumbSchema, Ticket } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import type { Init } from "./init.ts";
import { isoTimestamp, isoTimestampOrNull } from "./timestamps.ts";

export function ticketStatus(ticket: Ticket): Schemas["TicketStatus"] {
  return ticket.status as Schemas["TicketStatus"];
}

/** A ticket as the player's list shows it, with its conversation's last message and unread count. */
export function toPlayerTicketSummaryDto(ticket: Ticket, activity: PlayerConversationActivity | undefined): Schemas["PlayerTicketSummary"] {
  const last = activity?.lastMessage;
  return {
    lastMessage: last
      ? { from: last.from as "player" | "agent", preview: last.preview, hasAttachments: last.hasAttachments, createdAt: isoTimestamp(last.createdAt, "tickets", "last message createdAt") }
      : null,
    unread: activity?.unread ?? 0,
    id: ticket.id,
    runningId: Number(ticket.runningId),
    status: ticketStatus(ticket),
    createdAt: isoTimestamp(ticket.createdAt, "tickets", "ticket createdAt"),
    lastActivityAt: isoTimestampOrNull(ticket.lastActivityAt),
    resolutionType: (ticket.resolutionType ?? null) as Schemas["PlayerTicketSummary"]["resolutionType"],
    csatScore: ticket.csatScore ?? null,
  };
}

export function toBreadcrumbMessages(breadcrumbs: Schemas["Breadcrumb"][]): Init<typeof TicketBreadcrumbSchema>[] {
  return breadcrumbs.map((breadcrumb) => ({ message: breadcrumb.message, clientOccurredAt: timestampFromDate(new Date(breadcrumb.clientOccurredAt)) }));
}

/** A FILE answer carries attachment ids; any other answer a JSON value. */
export function toCollectorFieldMessages(fields: Schemas["CollectorAnswer"][]): Init<typeof AddCollectorResultRequestSchema>["fields"] {
  return fields.map((field) => ({
    key: field.key ?? undefined,
    label: field.label,
    type: field.type,
    value: field.type === "FILE" ? undefined : fromJson(ValueSchema, field.value),
    attachmentIds: field.type === "FILE" ? field.attachments : [],
  }));
}
