// /agent-api/saved-views: the signed-in user's own named lists (a search and, optionally, a
// built-in view). The tickets service keeps them, one user's apart from everyone else's.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { SavedView } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { TicketsClient } from "../clients.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSavedViewRoutesDeps {
  tickets: TicketsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

function savedViewDto(view: SavedView): Schemas["AgentSavedView"] {
  return { id: view.id, name: view.name, q: view.q, view: (view.view || null) as Schemas["AgentSavedView"]["view"], createdAt: timestampDate(view.createdAt!).toISOString() };
}

export function registerAgentSavedViewRoutes(api: ApiRoutes, deps: AgentSavedViewRoutesDeps): void {
  const { tickets, guards } = deps;

  api.operation<"listAgentSavedViews", AgentSessionState>(
    "listAgentSavedViews",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { views } = await tickets.listSavedViews({ companyId: session.companyId, userId: session.user.id });
      respond(ctx, 200, { views: views.map(savedViewDto) });
    },
    { before: guards.read },
  );

  api.operation<"createAgentSavedView", AgentSessionState>(
    "createAgentSavedView",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { name, q, view } = ctx.state.validated.body;
      const created = await tickets.createSavedView({ companyId: session.companyId, userId: session.user.id, name, q: q ?? "", view: view ?? "" });
      respond(ctx, 201, savedViewDto(created.view!));
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"deleteAgentSavedView", AgentSessionState>(
    "deleteAgentSavedView",
    async (ctx) => {
      const session = ctx.state.agentSession;
      await tickets.deleteSavedView({ companyId: session.companyId, userId: session.user.id, id: ctx.state.validated.params.savedViewId });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );
}
