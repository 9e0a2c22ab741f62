// /agent-api/users, /agent-api/games, /agent-api/tags and /agent-api/fields: who the company's
// people are (to show their names and assign tickets to them), the user's games by name, and the
// tags and fields a ticket of the user's games can get. Content owns them all.
import type { AgentSessionState } from "../agent-api/sessions.ts";
import { seesGame } from "../agent-api/sessions.ts";
import type { AgentAccessClient, ContentClient } from "../clients.ts";
import { toFieldDto } from "../mappings/fields.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentDirectoryRoutesDeps {
  agentAccess: AgentAccessClient;
  content: ContentClient;
  guards: AgentApiGuards;
}

export function registerAgentDirectoryRoutes(api: ApiRoutes, deps: AgentDirectoryRoutesDeps): void {
  api.operation<"listAgentUsers", AgentSessionState>(
    "listAgentUsers",
    async (ctx) => {
      const { users } = await deps.agentAccess.listCompanyUsers({ companyId: ctx.state.agentSession.companyId });
      respond(ctx, 200, {
        users: users.map((user) => ({ id: user.id, name: user.name, displayName: user.displayName, role: user.role as "admin" | "agent", gameIds: [...user.gameIds], skills: [...user.skills] })),
      });
    },
    { before: deps.guards.read },
  );

  api.operation<"listAgentTags", AgentSessionState>(
    "listAgentTags",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { tags } = await deps.content.listTags({ companyId: session.companyId });
      respond(ctx, 200, {
        tags: tags
          .filter((tag) => tag.gameId === undefined || seesGame(session, tag.gameId))
          .map((tag) => ({ name: tag.name, gameId: tag.gameId ?? null, description: tag.description ?? null, isSkill: tag.isSkill, isAiTag: tag.isAiTag })),
      });
    },
    { before: deps.guards.read },
  );

  api.operation<"listAgentGames", AgentSessionState>(
    "listAgentGames",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { games } = await deps.content.listGames({ companyId: session.companyId });
      respond(ctx, 200, {
        games: games
          .filter((game) => seesGame(session, game.id))
          .map((game) => ({ id: game.id, name: game.name, slug: game.slug, languages: [...game.languages], routingEnabled: game.routingEnabled }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      });
    },
    { before: deps.guards.read },
  );

  api.operation<"listAgentFields", AgentSessionState>(
    "listAgentFields",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { fields } = await deps.content.listFields({ companyId: session.companyId });
      respond(ctx, 200, {
        fields: fields
          .filter((field) => field.gameId === undefined || seesGame(session, field.gameId))
          .map((field) => ({ ...toFieldDto(field), options: [...field.options] })),
      });
    },
    { before: deps.guards.read },
  );
}
