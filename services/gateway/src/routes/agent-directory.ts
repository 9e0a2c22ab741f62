// /agent-api/users and /agent-api/tags: who the company's people are (to show their names and
// assign tickets to them) and the tags a ticket of the user's games can get. Content owns both.
import type { AgentSessionState } from "../agent-api/sessions.ts";
import { seesGame } from "../agent-api/sessions.ts";
import type { AgentAccessClient, ContentClient } from "../clients.ts";
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
}
