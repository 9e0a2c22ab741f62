// Tickets between REST and tickets.v1, one mapping per direction: the JSON of the document
// (types generated from openapi.yaml) to tickets.v1 messages, and tickets.v1 answers to the
// document's JSON (every field present, null where empty).
//
// tickets.v1 carries the document's enums (status, language, ...) as strings and free-form
// values (fields, metadata, collector answers) as JSON. The tickets service only stores
// values the document allows, and the integration tests check every response against the
// document; so the `as` casts below narrow those strings and JSON values to the document's
// types without checking them again.
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type {
  CreateTicketRequestSchema,
  ListTicketBreadcrumbsResponse,
  ListTicketsRequestSchema,
  Ticket,
  TicketActionSchema,
  TicketAttachmentRef,
  TicketEvent,
} from "@support/proto";
import type { PublicTicket } from "@support/events";
import type { Schemas, Validated } from "../openapi/types.ts";
import type { Init } from "./init.ts";
import { isoTimestamp, isoTimestampOrNull } from "./timestamps.ts";

/**
 * The document's Ticket is the event contract's PublicTicket (which `tickets.ticket.created` and
 * the webhooks carry): the same fields, the document's values a subset of the contract's (its
 * enumerations are narrower). A field added to one and not the other fails this check.
 */
type SameFields<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export const documentTicketIsPublicTicket: SameFields<Schemas["Ticket"], PublicTicket> & (Schemas["Ticket"] extends PublicTicket ? true : false) = true;

/** A ticket as the document lists it. */
export function toTicketDto(ticket: Ticket): Schemas["Ticket"] {
  return {
    id: ticket.id,
    runningId: Number(ticket.runningId),
    url: ticket.url,
    gameId: ticket.gameId,
    gameEnvironmentId: ticket.gameEnvironmentId,
    servicePlayerId: ticket.servicePlayerId ?? null,
    playerId: ticket.playerId ?? null,
    playerName: ticket.playerName ?? null,
    email: ticket.email ?? null,
    status: ticket.status as Schemas["TicketStatus"],
    supportSource: (ticket.supportSource ?? null) as Schemas["Ticket"]["supportSource"],
    channels: ticket.channels as Schemas["Ticket"]["channels"],
    language: ticket.language as Schemas["Language"],
    resolutionType: (ticket.resolutionType ?? null) as Schemas["Ticket"]["resolutionType"],
    csatScore: ticket.csatScore ?? null,
    csatReview: ticket.csatReview ?? null,
    issueSummary: ticket.issueSummary ?? null,
    issueResolution: ticket.issueResolution ?? null,
    followUpTicketId: ticket.followUpTicketId ?? null,
    reopenedFromTicketId: ticket.reopenedFromTicketId ?? null,
    createdAt: isoTimestamp(ticket.createdAt, "tickets", "ticket createdAt"),
    lastActivityAt: isoTimestampOrNull(ticket.lastActivityAt),
    tags: ticket.tags,
    fields: (ticket.fields ?? {}) as Schemas["FieldValues"],
    metadata: (ticket.metadata ?? {}) as Schemas["TicketMetadata"],
  };
}

const attachmentsDto = (attachments: TicketAttachmentRef[]): Schemas["AttachmentRef"][] => attachments.map((attachment) => ({ id: attachment.id }));

/** Where a copied event came from (a merge), only on copies. */
function mergedFromDto(event: TicketEvent): { mergedFrom?: Schemas["MergedFrom"] } {
  const from = event.mergedFrom;
  if (from === undefined) return {};
  return {
    mergedFrom: {
      ticketId: from.ticketId,
      runningId: Number(from.runningId),
      eventId: from.eventId,
      createdAt: isoTimestamp(from.createdAt, "tickets", "mergedFrom createdAt"),
    },
  };
}

/** An event as the document shows it; undefined for a type this gateway does not know (clients ignore those anyway). */
export function toEventDto(event: TicketEvent): Schemas["KnownTicketEvent"] | undefined {
  const common = { id: event.id, createdAt: isoTimestamp(event.createdAt, "tickets", "event createdAt"), ...mergedFromDto(event) };
  const { payload } = event;
  switch (payload.case) {
    case "playerMessage":
    case "agentMessage":
      return {
        ...common,
        type: payload.case === "playerMessage" ? "PLAYER_MESSAGE" : "AGENT_MESSAGE",
        message: payload.value.message,
        language: payload.value.language as Schemas["Language"],
        attachments: attachmentsDto(payload.value.attachments),
      };
    case "privateNote":
      return { ...common, type: "PRIVATE_NOTE", message: payload.value.message, attachments: attachmentsDto(payload.value.attachments) };
    case "csat":
      return { ...common, type: "CSAT", score: payload.value.score, review: payload.value.review ?? null };
    case "end":
      return { ...common, type: "END", resolutionType: payload.value.resolutionType as Schemas["EndEvent"]["resolutionType"] };
    case "collectorResult":
      return {
        ...common,
        type: "COLLECTOR_RESULT",
        collectorId: payload.value.collectorId,
        resultId: payload.value.resultId,
        title: payload.value.title,
        fields: payload.value.fields.map((field) =>
          field.type === "FILE"
            ? { key: field.key ?? null, label: field.label, type: "FILE", attachments: attachmentsDto(field.attachments) }
            : ({ key: field.key ?? null, label: field.label, type: field.type, value: field.value ? toJson(ValueSchema, field.value) : null } as Schemas["CollectorField"]),
        ),
      };
    default:
      return undefined;
  }
}

/** The events of a ticket as the document lists them, without the types this gateway does not know. */
export function toEventDtos(events: TicketEvent[]): Schemas["KnownTicketEvent"][] {
  return events.map(toEventDto).filter((event) => event !== undefined);
}

/** A ticket's breadcrumbs and the client clock offset, as the document shows them. */
export function toBreadcrumbsDto(response: ListTicketBreadcrumbsResponse) {
  return {
    breadcrumbs: response.breadcrumbs.map((breadcrumb) => ({
      message: breadcrumb.message,
      clientOccurredAt: isoTimestamp(breadcrumb.clientOccurredAt, "tickets", "breadcrumb clientOccurredAt"),
    })),
    clientClockOffsetMs: response.clientClockOffsetMs === undefined ? null : Number(response.clientClockOffsetMs),
  };
}

/**
 * The list query as sent: the tickets service parses the JSON filters and the dates, and
 * checks the cursor against the order and the company.
 */
export function toListTicketsRequest(companyId: string, query: Validated<"listTickets">["query"]): Init<typeof ListTicketsRequestSchema> {
  const { playerId, email, gameId, ticketId, tags, fields, status, createdAfter, createdBefore, order, cursor, limit } = query;
  // Named one by one: the query may hold parameters the document does not declare.
  return { companyId, playerId, email, gameId, ticketId, tags, fields, status, createdAfter, createdBefore, order, cursor, limit };
}

export function toCreateTicketRequest(companyId: string, body: Schemas["CreateTicketRequest"]): Init<typeof CreateTicketRequestSchema> {
  const { player, tags, fields } = body.metadata;
  return {
    companyId,
    gameId: body.gameId,
    message: body.message,
    attachments: body.attachments,
    skipDuplicateCheck: body.skipDuplicateCheck,
    language: body.language,
    channels: body.channels,
    platform: body.platform,
    player: { id: player.id, name: player.name, email: player.email, tier: player.tier },
    tags: tags ?? [],
    fields,
  };
}

export function toActionMessage(action: Schemas["Action"]): Init<typeof TicketActionSchema> {
  switch (action.type) {
    case "addTags":
    case "removeTags":
      return { action: { case: action.type, value: { tagNames: action.tagNames, userId: action.userId } } };
    case "setFields":
      return { action: { case: "setFields", value: { fields: action.fields, userId: action.userId } } };
    case "setOnHold":
      return { action: { case: "setOnHold", value: { onHold: action.onHold, userId: action.userId } } };
    case "setStatus":
      return { action: { case: "setStatus", value: { status: action.status, userId: action.userId } } };
    case "setPlayerInfo":
      return { action: { case: "setPlayerInfo", value: { name: action.player.name, tier: action.player.tier } } };
    case "sendMessage":
    case "addPrivateNote":
      return { action: { case: action.type, value: { message: action.message, userId: action.userId, attachments: action.attachments ?? [] } } };
    case "assignTicket":
      return { action: { case: "assignTicket", value: { assigneeId: action.assigneeId, userId: action.userId } } };
    case "resolveTicket":
    case "rejectTicket":
    case "unassignTicket":
      return { action: { case: action.type, value: { userId: action.userId } } };
  }
}
