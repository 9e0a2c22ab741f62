// 4.5, 4.6, 4.9, 4.10, 4.11 Tickets: list, create, actions, events, breadcrumbs. The request
// shapes are checked against the OpenAPI document before these handlers run; every rule
// (filters, cursors, duplicates, states) lives in the tickets service. Handlers only turn
// validated JSON into tickets.v1 messages and the answers into the JSON of 2.4-2.6.
import { toJson, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, ValueSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Ticket, TicketActionSchema, TicketAttachmentRef, TicketEvent } from "@support/proto";
import type { TicketsClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";

/** RFC 3339 of a timestamp the tickets service always sets; its absence is a bug (500). */
function iso(timestamp: Timestamp | undefined, what: string): string {
  if (timestamp === undefined) throw new Error(`tickets returned no ${what}`);
  return timestampDate(timestamp).toISOString();
}

/** A ticket as 2.4 lists it: every field present, null where empty. */
export function toTicketDto(ticket: Ticket) {
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
    status: ticket.status,
    supportSource: ticket.supportSource ?? null,
    channels: ticket.channels,
    language: ticket.language,
    resolutionType: ticket.resolutionType ?? null,
    csatScore: ticket.csatScore ?? null,
    csatReview: ticket.csatReview ?? null,
    issueSummary: ticket.issueSummary ?? null,
    issueResolution: ticket.issueResolution ?? null,
    followUpTicketId: ticket.followUpTicketId ?? null,
    reopenedFromTicketId: ticket.reopenedFromTicketId ?? null,
    createdAt: iso(ticket.createdAt, "ticket createdAt"),
    lastActivityAt: ticket.lastActivityAt ? timestampDate(ticket.lastActivityAt).toISOString() : null,
    tags: ticket.tags,
    fields: ticket.fields ?? {},
    metadata: ticket.metadata ?? {},
  };
}

const attachmentsDto = (attachments: TicketAttachmentRef[]) => attachments.map((attachment) => ({ id: attachment.id }));

/** An event as 2.5 shows it; undefined for a type this gateway does not know (clients ignore those anyway). */
export function toEventDto(event: TicketEvent): Record<string, unknown> | undefined {
  const common = { id: event.id, createdAt: iso(event.createdAt, "event createdAt") };
  const { payload } = event;
  switch (payload.case) {
    case "playerMessage":
    case "agentMessage":
      return {
        ...common,
        type: payload.case === "playerMessage" ? "PLAYER_MESSAGE" : "AGENT_MESSAGE",
        message: payload.value.message,
        language: payload.value.language,
        attachments: attachmentsDto(payload.value.attachments),
      };
    case "privateNote":
      return { ...common, type: "PRIVATE_NOTE", message: payload.value.message, attachments: attachmentsDto(payload.value.attachments) };
    case "csat":
      return { ...common, type: "CSAT", score: payload.value.score, review: payload.value.review ?? null };
    case "end":
      return { ...common, type: "END", resolutionType: payload.value.resolutionType };
    case "collectorResult":
      return {
        ...common,
        type: "COLLECTOR_RESULT",
        collectorId: payload.value.collectorId,
        resultId: payload.value.resultId,
        title: payload.value.title,
        fields: payload.value.fields.map((field) =>
          field.type === "FILE"
            ? { key: field.key ?? null, label: field.label, type: field.type, attachments: attachmentsDto(field.attachments) }
            : { key: field.key ?? null, label: field.label, type: field.type, value: field.value ? toJson(ValueSchema, field.value) : null },
        ),
      };
    default:
      return undefined;
  }
}

interface CreateTicketBody {
  gameId: string;
  message: string;
  attachments: string[];
  skipDuplicateCheck: boolean;
  language: string;
  channels: string[];
  platform: string;
  metadata: {
    player: { id?: string; name?: string; email: string; tier?: number };
    tags?: string[];
    fields?: JsonObject;
  };
}

type ActionBody =
  | { type: "addTags" | "removeTags"; tagNames: string[]; userId?: string }
  | { type: "setFields"; fields: JsonObject; userId?: string }
  | { type: "setOnHold"; onHold: boolean; userId?: string }
  | { type: "setStatus"; status: string; userId?: string }
  | { type: "setPlayerInfo"; player: { name?: string; tier?: number } }
  | { type: "sendMessage" | "addPrivateNote"; message: string; userId?: string }
  | { type: "resolveTicket" | "rejectTicket" | "unassignTicket"; userId?: string }
  | { type: "assignTicket"; assigneeId: string; userId?: string };

type ActionMessage = Exclude<MessageInitShape<typeof TicketActionSchema>, { $typeName: string }>;

export function toActionMessage(action: ActionBody): ActionMessage {
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
      return { action: { case: action.type, value: { message: action.message, userId: action.userId } } };
    case "assignTicket":
      return { action: { case: "assignTicket", value: { assigneeId: action.assigneeId, userId: action.userId } } };
    case "resolveTicket":
    case "rejectTicket":
    case "unassignTicket":
      return { action: { case: action.type, value: { userId: action.userId } } };
  }
}

const optionalString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export function registerTicketRoutes(api: ApiRoutes, deps: { tickets: TicketsClient }): void {
  const { tickets } = deps;

  api.operation("listTickets", async (ctx) => {
    const query = ctx.state.validated.query;
    // The query goes through as sent: the tickets service parses the JSON filters and the
    // dates, and checks the cursor against the order and the company.
    const response = await tickets.listTickets({
      companyId: ctx.state.companyId,
      playerId: optionalString(query.playerId),
      email: optionalString(query.email),
      gameId: optionalString(query.gameId),
      ticketId: optionalString(query.ticketId),
      tags: optionalString(query.tags),
      fields: optionalString(query.fields),
      status: optionalString(query.status),
      createdAfter: optionalString(query.createdAfter),
      createdBefore: optionalString(query.createdBefore),
      order: optionalString(query.order),
      cursor: optionalString(query.cursor),
      limit: typeof query.limit === "number" ? query.limit : undefined,
    });
    ctx.body = { tickets: response.tickets.map(toTicketDto), pagination: { cursor: response.nextCursor ?? null } };
  });

  api.operation("createTicket", async (ctx) => {
    const body = ctx.state.validated.body as CreateTicketBody;
    const { player } = body.metadata;
    const response = await tickets.createTicket({
      companyId: ctx.state.companyId,
      gameId: body.gameId,
      message: body.message,
      attachments: body.attachments,
      skipDuplicateCheck: body.skipDuplicateCheck,
      language: body.language,
      channels: body.channels,
      platform: body.platform,
      player: { id: player.id, name: player.name, email: player.email, tier: player.tier },
      tags: body.metadata.tags ?? [],
      fields: body.metadata.fields,
    });
    ctx.body = { ticketId: response.ticketId, runningId: Number(response.runningId) };
  });

  api.operation("performTicketActions", async (ctx) => {
    const body = ctx.state.validated.body as { actions: ActionBody[] };
    const response = await tickets.performTicketActions({
      companyId: ctx.state.companyId,
      ticketId: ctx.state.validated.params.ticketId as string,
      apiKeyId: ctx.state.apiKeyId,
      actions: body.actions.map(toActionMessage),
    });
    ctx.body = { success: response.success };
  });

  api.operation("listTicketEvents", async (ctx) => {
    const { events } = await tickets.listTicketEvents({ companyId: ctx.state.companyId, ticketId: ctx.state.validated.params.ticketId as string });
    ctx.body = { events: events.map(toEventDto).filter((event) => event !== undefined) };
  });

  api.operation("listTicketBreadcrumbs", async (ctx) => {
    const response = await tickets.listTicketBreadcrumbs({ companyId: ctx.state.companyId, ticketId: ctx.state.validated.params.ticketId as string });
    ctx.body = {
      breadcrumbs: response.breadcrumbs.map((breadcrumb) => ({
        message: breadcrumb.message,
        clientOccurredAt: iso(breadcrumb.clientOccurredAt, "breadcrumb clientOccurredAt"),
      })),
      clientClockOffsetMs: response.clientClockOffsetMs === undefined ? null : Number(response.clientClockOffsetMs),
    };
  });
}
