// /agent-api/tickets: the support application's work on tickets, behind the session cookie of
// routes/agent-api.ts. Scope: the signed-in user's company (every RPC names it) and, of it, the
// games of the session (an admin's are every game of the company); a ticket outside them is
// answered exactly like one that does not exist, so nothing tells a user it is there.
// The ticket and its events are the public API's projection (mappings/tickets.ts); the rules
// (actions, states, filters) live in the tickets service.
import { notFound, validationError } from "@support/errors";
import type { Player, Ticket } from "@support/proto";
import { connectToAppError } from "@support/rpc";
import type { Middleware } from "koa";
import { seesGame, type AgentSessionState, type AgentSessionView } from "../agent-api/sessions.ts";
import type { EmailClient, MediaClient, PlayersClient, TicketsClient } from "../clients.ts";
import { toCreateAttachmentUploadRequest, toUploadInstructionDto } from "../mappings/attachments.ts";
import { conversationAttachmentIds, toEventAuthorDto, toTicketListItemDto, toTicketViewDto, toViewCountDto } from "../mappings/agent-tickets.ts";
import { toActionMessage, toTicketDto } from "../mappings/tickets.ts";
import { ruleRunDto } from "../mappings/rules.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { idempotencyKey } from "../middleware/idempotency.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { getOperation } from "../openapi/operations.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentTicketRoutesDeps {
  tickets: TicketsClient;
  players: PlayersClient;
  media: MediaClient;
  email: EmailClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

/** How many of the player's other tickets the ticket view shows. */
export const OTHER_TICKETS_SHOWN = 20;

/** The one answer for a ticket that does not exist, is another company's, or is of a game outside the user's. */
const ticketNotFound = () => notFound("ticket not found");

/**
 * Refuses, before validation, an action that names its own `userId` (the document's schema
 * refuses it too; this says why, at the action's path): who acts is the session's user.
 */
const refuseUserIdInActions: Middleware = (ctx, next) => {
  const actions = (ctx.request.body as { actions?: unknown } | undefined)?.actions;
  if (Array.isArray(actions)) {
    const issues = actions.flatMap((action, index) =>
      action !== null && typeof action === "object" && "userId" in action
        ? [{ path: `/actions/${index}/userId`, message: "is not accepted here: the action is performed by the signed-in user" }]
        : [],
    );
    if (issues.length > 0) throw validationError(issues);
  }
  return next();
};

export function registerAgentTicketRoutes(api: ApiRoutes, deps: AgentTicketRoutesDeps): void {
  const { tickets, players, media, email, guards } = deps;

  /** The ticket if the session's user may see it; the 404 otherwise. */
  const ticketInScope = async (session: AgentSessionView, ticketId: string): Promise<Ticket> => {
    const { ticket } = await tickets.getTicket({ companyId: session.companyId, ticketId });
    if (ticket === undefined || !seesGame(session, ticket.gameId)) throw ticketNotFound();
    return ticket;
  };

  /** The player's record; undefined when the ticket names none or it is gone (an erasure in progress). */
  const playerOf = async (companyId: string, ticket: Ticket): Promise<Player | undefined> => {
    if (ticket.servicePlayerId === undefined) return undefined;
    try {
      return (await players.getPlayer({ companyId, playerId: ticket.servicePlayerId })).player;
    } catch (error) {
      if (connectToAppError(error).code === "not_found") return undefined;
      throw error;
    }
  };

  /** The player's other tickets in the ticket's game, newest first: by external id, else by email. */
  const otherTicketsOf = async (companyId: string, ticket: Ticket): Promise<Ticket[]> => {
    const player = ticket.playerId !== undefined ? { playerId: ticket.playerId } : ticket.email !== undefined ? { email: ticket.email } : undefined;
    if (player === undefined) return [];
    const page = await tickets.listTickets({ companyId, gameId: ticket.gameId, ...player, order: "desc", limit: OTHER_TICKETS_SHOWN + 1 });
    return page.tickets.filter((other) => other.id !== ticket.id).slice(0, OTHER_TICKETS_SHOWN);
  };

  api.operation<"listAgentTickets", AgentSessionState>(
    "listAgentTickets",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { tier, ...query } = ctx.state.validated.query;
      // Named through the RPC's fields: the query may hold parameters the document does not declare.
      const page = await tickets.listAgentTickets({
        companyId: session.companyId,
        gameIds: session.gameIds,
        userId: session.user.id,
        playerId: query.playerId,
        email: query.email,
        gameId: query.gameId,
        ticketId: query.ticketId,
        tags: query.tags,
        fields: query.fields,
        status: query.status,
        createdAfter: query.createdAfter,
        createdBefore: query.createdBefore,
        order: query.order,
        cursor: query.cursor,
        limit: query.limit,
        assignee: query.assignee,
        language: query.language,
        tier: tier === undefined ? undefined : String(tier),
        channel: query.channel,
        q: query.q,
        sort: query.sort,
        view: query.view,
      });
      const matches = new Map(page.matches.map((match) => [match.ticketId, match]));
      const summaries = new Map(page.summaries.map((summary) => [summary.ticketId, summary]));
      respond(ctx, 200, {
        tickets: page.tickets.map((ticket) => toTicketListItemDto(ticket, summaries.get(ticket.id), matches.get(ticket.id))),
        pagination: { cursor: page.nextCursor ?? null },
      });
    },
    { before: guards.read },
  );

  api.operation<"listAgentViews", AgentSessionState>(
    "listAgentViews",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { views } = await tickets.countAgentViews({ companyId: session.companyId, gameIds: session.gameIds, userId: session.user.id });
      respond(ctx, 200, { views: views.map(toViewCountDto) });
    },
    { before: guards.read },
  );

  api.operation<"getAgentTicket", AgentSessionState>(
    "getAgentTicket",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { companyId } = session;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      const [{ events }, breadcrumbs, player, otherTickets, deletion, mails, heldMails] = await Promise.all([
        tickets.listTicketEvents({ companyId, ticketId: ticket.id }),
        tickets.listTicketBreadcrumbs({ companyId, ticketId: ticket.id }),
        playerOf(companyId, ticket),
        otherTicketsOf(companyId, ticket),
        ticket.servicePlayerId === undefined ? undefined : players.getPlayerDeletion({ companyId, playerId: ticket.servicePlayerId }).then((answer) => answer.deletion),
        // The ticket opens while the email service is away: its mails' delivery is then not shown.
        ticket.channels.includes("email") ? email.listTicketMails({ companyId, ticketId: ticket.id }).then((answer) => answer.mails, () => []) : [],
        ticket.channels.includes("email") ? email.listHeldMails({ companyId, ticketId: ticket.id }).then((answer) => answer.mails, () => []) : [],
      ]);
      // The files' names and types come from media, which owns them; the events keep only ids.
      const ids = [...conversationAttachmentIds(events)];
      const attachments = ids.length === 0 ? [] : (await media.describeAttachments({ companyId, attachmentIds: ids })).attachments;
      respond(ctx, 200, toTicketViewDto({ ticket, events, breadcrumbs, player, deletion, otherTickets, attachments, mails, heldMails }));
    },
    { before: guards.read },
  );

  // Keys are the company's (as on the public route), and the signed-in user is part of the
  // request: another user's request with the same key and body is another request (422).
  // api.operation adds the key's middleware only to API-key routes, so the handler runs it
  // itself, after validation as there (the cast: Koa's context type of that middleware).
  const idempotency = idempotencyKey(getOperation("performAgentTicketActions"), (state) => (state as AgentSessionState).agentSession.user.id) as Middleware;
  api.operation<"performAgentTicketActions", AgentSessionState>(
    "performAgentTicketActions",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { ticketId } = ctx.state.validated.params;
      await idempotency(ctx as never, async () => {
        await ticketInScope(session, ticketId);
        const response = await tickets.performTicketActions({
          companyId: session.companyId,
          ticketId,
          actingUserId: session.user.id,
          actions: ctx.state.validated.body.actions.map(toActionMessage),
        });
        respond(ctx, 200, { success: response.success });
      });
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes), refuseUserIdInActions] },
  );

  // Both tickets must be in the user's scope: a target outside it is the same 404 as one that
  // does not exist. The rules of a merge (same player and game, both open) are the tickets
  // service's; it answers 400 at /targetTicketId or 409.
  api.operation<"mergeAgentTicket", AgentSessionState>(
    "mergeAgentTicket",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { ticketId } = ctx.state.validated.params;
      const { targetTicketId } = ctx.state.validated.body;
      await ticketInScope(session, ticketId);
      try {
        await ticketInScope(session, targetTicketId);
      } catch (error) {
        if (connectToAppError(error).code === "not_found") throw notFound("target ticket not found");
        throw error;
      }
      const { source, target } = await tickets.mergeTickets({
        companyId: session.companyId,
        sourceTicketId: ticketId,
        targetTicketId,
        actingUserId: session.user.id,
      });
      if (source === undefined || target === undefined) throw new Error("tickets returned no ticket");
      respond(ctx, 200, { source: toTicketDto(source), target: toTicketDto(target) });
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  // An upload for a reply or note: the ticket's company and game, the company's like one of
  // POST /attachments (no session), so that the tickets service claims it as the company's.
  const uploadIdempotency = idempotencyKey(getOperation("createAgentTicketAttachment"), (state) => (state as AgentSessionState).agentSession.user.id) as Middleware;
  api.operation<"createAgentTicketAttachment", AgentSessionState>(
    "createAgentTicketAttachment",
    async (ctx) => {
      const session = ctx.state.agentSession;
      await uploadIdempotency(ctx as never, async () => {
        const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
        const instruction = await media.createAttachmentUpload(
          toCreateAttachmentUploadRequest(session.companyId, ctx.state.validated.body, { gameId: ticket.gameId, playerId: undefined }),
        );
        respond(ctx, 200, toUploadInstructionDto(instruction));
      });
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"getAgentTicketAttachment", AgentSessionState>(
    "getAgentTicketAttachment",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { ticketId, attachmentId } = ctx.state.validated.params;
      const ticket = await ticketInScope(session, ticketId);
      const { events } = await tickets.listTicketEvents({ companyId: session.companyId, ticketId: ticket.id });
      // Only what the conversation shows: an attachment id of another ticket is not found here.
      if (!conversationAttachmentIds(events).has(attachmentId)) throw notFound("attachment not found");
      const { downloadUrl } = await media.getAttachmentDownload({ companyId: session.companyId, attachmentId });
      ctx.set("Location", downloadUrl);
      ctx.set("Cache-Control", "no-store");
      respond(ctx, 307, "");
      ctx.remove("Content-Type");
    },
    { before: guards.read },
  );

  api.operation<"cancelAgentPlayerDeletion", AgentSessionState>(
    "cancelAgentPlayerDeletion",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      if (ticket.servicePlayerId === undefined) throw notFound("no deletion is scheduled for this player");
      await players.cancelPlayerDeletion({ companyId: session.companyId, playerId: ticket.servicePlayerId, actingUserId: session.user.id });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );

  // "Unassign for automatic assignment" (docs/automation.md): the tickets service checks the
  // game's routing and the ticket's state; routing assigns it again right after.
  api.operation<"requeueAgentTicket", AgentSessionState>(
    "requeueAgentTicket",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      await tickets.requeueTicket({ companyId: session.companyId, ticketId: ticket.id, actingUserId: session.user.id });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );

  api.operation<"getAgentTicketSla", AgentSessionState>(
    "getAgentTicketSla",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      const sla = await tickets.getTicketSla({ companyId: session.companyId, ticketId: ticket.id });
      respond(ctx, 200, {
        policyId: sla.policyId ?? null,
        policyName: sla.policyName ?? null,
        clocks: sla.clocks.map((c) => ({
          metric: c.metric as "first_response" | "next_response" | "resolution",
          cycle: c.cycle,
          state: c.state as "running" | "paused" | "met" | "breached",
          startedAt: isoTimestamp(c.startedAt, "tickets", "SLA clock startedAt"),
          stoppedAt: isoTimestampOrNull(c.stoppedAt),
          targetMinutes: c.targetMinutes,
          elapsedSeconds: Number(c.elapsedSeconds),
          dueAt: isoTimestampOrNull(c.dueAt),
        })),
      });
    },
    { before: guards.read },
  );

  api.operation<"listAgentTicketAssignments", AgentSessionState>(
    "listAgentTicketAssignments",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      const { changes } = await tickets.listAssignmentHistory({ companyId: session.companyId, ticketId: ticket.id });
      respond(ctx, 200, {
        changes: changes.map((change) => ({
          at: isoTimestamp(change.createdAt, "tickets", "assignment createdAt"),
          fromUserId: change.fromUserId ?? null,
          toUserId: change.toUserId ?? null,
          by: toEventAuthorDto(change),
        })),
      });
    },
    { before: guards.read },
  );

  api.operation<"listAgentTicketRuleRuns", AgentSessionState>(
    "listAgentTicketRuleRuns",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      const { runs } = await tickets.listRuleRuns({ companyId: session.companyId, ticketId: ticket.id, limit: 200 });
      respond(ctx, 200, { runs: runs.map(ruleRunDto) });
    },
    { before: guards.read },
  );

  api.operation<"markAgentTicketRead", AgentSessionState>(
    "markAgentTicketRead",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticket = await ticketInScope(session, ctx.state.validated.params.ticketId);
      await tickets.markTicketRead({ companyId: session.companyId, ticketId: ticket.id, userId: session.user.id });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );
}
