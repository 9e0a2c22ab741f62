// /agent-api canned responses: the company's ready answers, listed for the user's games and,
// for a ticket, filled in by content in the ticket's language; admins write and retire them.
// Content owns them (canned-responses/ there): this only maps HTTP onto its RPCs.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { notFound } from "@support/errors";
import type { CannedActions, CannedResponse, CannedResponseInputSchema } from "@support/proto";
import { seesGame, type AgentSessionState } from "../agent-api/sessions.ts";
import type { CannedResponsesClient, ContentClient, TicketsClient } from "../clients.ts";
import { HttpProblem } from "../middleware/errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentCannedResponseRoutesDeps {
  cannedResponses: CannedResponsesClient;
  tickets: TicketsClient;
  content: ContentClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

function actionsDto(actions: CannedActions | undefined): Schemas["AgentCannedActions"] {
  return { addTags: [...(actions?.addTags ?? [])], status: (actions?.status || null) as Schemas["AgentCannedActions"]["status"], resolve: actions?.resolve ?? false };
}

function responseDto(response: CannedResponse): Schemas["AgentCannedResponse"] {
  return {
    id: response.id,
    gameId: response.gameId ?? null,
    name: response.name,
    texts: { ...response.texts },
    actions: actionsDto(response.actions),
    createdBy: response.createdBy ?? null,
    createdAt: timestampDate(response.createdAt!).toISOString(),
    updatedAt: timestampDate(response.updatedAt!).toISOString(),
  };
}

function inputMessage(body: Schemas["AgentCannedResponseInput"]): MessageInitShape<typeof CannedResponseInputSchema> {
  return {
    ...(body.gameId ? { gameId: body.gameId } : {}),
    name: body.name,
    texts: body.texts,
    actions: { addTags: body.actions?.addTags ?? [], status: body.actions?.status ?? "", resolve: body.actions?.resolve ?? false },
  };
}

/** Only admins write; agents learn so with a 403 before anything is read. */
const adminOnly = (session: AgentSessionState["agentSession"]) => {
  if (session.user.role !== "admin") throw new HttpProblem(403, "permission_denied", "Only an admin of the company writes canned responses");
};

export function registerAgentCannedResponseRoutes(api: ApiRoutes, deps: AgentCannedResponseRoutesDeps): void {
  const { cannedResponses, guards } = deps;

  api.operation<"listAgentCannedResponses", AgentSessionState>(
    "listAgentCannedResponses",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { responses } = await cannedResponses.listCannedResponses({ companyId: session.companyId, gameIds: session.gameIds });
      respond(ctx, 200, { responses: responses.map(responseDto) });
    },
    { before: guards.read },
  );

  api.operation<"listAgentTicketCannedResponses", AgentSessionState>(
    "listAgentTicketCannedResponses",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { ticketId } = ctx.state.validated.params;
      const { ticket } = await deps.tickets.getTicket({ companyId: session.companyId, ticketId });
      if (ticket === undefined || !seesGame(session, ticket.gameId)) throw notFound("ticket not found");
      const { game } = await deps.content.getGame({ companyId: session.companyId, gameId: ticket.gameId });
      const values: Record<string, string> = { "ticket.number": String(ticket.runningId), "agent.name": session.user.displayName };
      if (ticket.playerName) values["player.name"] = ticket.playerName;
      if (game?.name) values["game.name"] = game.name;
      const { responses } = await cannedResponses.renderCannedResponses({ companyId: session.companyId, gameId: ticket.gameId, language: ticket.language, values });
      respond(ctx, 200, {
        responses: responses.map(({ response, language, text }) => ({
          id: response!.id,
          gameId: response!.gameId ?? null,
          name: response!.name,
          language,
          text,
          actions: actionsDto(response!.actions),
        })),
      });
    },
    { before: guards.read },
  );

  api.operation<"createAgentCannedResponse", AgentSessionState>(
    "createAgentCannedResponse",
    async (ctx) => {
      const session = ctx.state.agentSession;
      adminOnly(session);
      const { response } = await cannedResponses.createCannedResponse({ companyId: session.companyId, actingUserId: session.user.id, response: inputMessage(ctx.state.validated.body) });
      respond(ctx, 201, responseDto(response!));
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"updateAgentCannedResponse", AgentSessionState>(
    "updateAgentCannedResponse",
    async (ctx) => {
      const session = ctx.state.agentSession;
      adminOnly(session);
      const { response } = await cannedResponses.updateCannedResponse({
        companyId: session.companyId, actingUserId: session.user.id, id: ctx.state.validated.params.cannedResponseId, response: inputMessage(ctx.state.validated.body),
      });
      respond(ctx, 200, responseDto(response!));
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"retireAgentCannedResponse", AgentSessionState>(
    "retireAgentCannedResponse",
    async (ctx) => {
      const session = ctx.state.agentSession;
      adminOnly(session);
      await cannedResponses.retireCannedResponse({ companyId: session.companyId, actingUserId: session.user.id, id: ctx.state.validated.params.cannedResponseId });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );
}
