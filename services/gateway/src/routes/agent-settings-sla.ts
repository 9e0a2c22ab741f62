// /agent-api/settings/sla: the company's SLA calendar and policies, read and replaced by its
// admins. The tickets service keeps them (it computes the clocks and runs the sweep) and checks
// them whole: a problem anywhere is a 400 naming every issue, and nothing is stored.
import type { JsonObject } from "@bufbuild/protobuf";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { TicketsClient } from "../clients.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsSlaRoutesDeps {
  tickets: TicketsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

function settingsDto(settings: JsonObject | undefined, updatedAt: string | null): Schemas["AgentSlaSettingsSaved"] {
  const { calendar, policies } = (settings ?? {}) as unknown as Schemas["AgentSlaSettings"];
  return { calendar: calendar ?? null, policies: policies ?? [], updatedAt };
}

export function registerAgentSettingsSlaRoutes(api: ApiRoutes, deps: AgentSettingsSlaRoutesDeps): void {
  const { tickets, guards } = deps;

  api.operation<"getAgentSettingsSla", AgentSessionState>(
    "getAgentSettingsSla",
    async (ctx) => {
      const { settings, updatedAt } = await tickets.getSlaSettings({ companyId: ctx.state.agentSession.companyId });
      respond(ctx, 200, settingsDto(settings, isoTimestampOrNull(updatedAt)));
    },
    { before: [...guards.read, requireAdmin] },
  );

  api.operation<"setAgentSettingsSla", AgentSessionState>(
    "setAgentSettingsSla",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const session = ctx.state.agentSession;
      // The admin and their address: a change is recorded in the audit log (tickets.audit.recorded).
      const saved = await tickets.setSlaSettings({ companyId: session.companyId, settings: body as unknown as JsonObject, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) });
      respond(ctx, 200, settingsDto(saved.settings, isoTimestamp(saved.updatedAt, "tickets", "SLA settings updatedAt")));
    },
    { before: [...guards.write, requireAdmin, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"getAgentSlaReport", AgentSessionState>(
    "getAgentSlaReport",
    async (ctx) => {
      const { rows } = await tickets.getSlaReport({ companyId: ctx.state.agentSession.companyId, weeks: ctx.state.validated.query.weeks ?? 8 });
      respond(ctx, 200, {
        rows: rows.map((row) => ({
          week: row.week, policyId: row.policyId, policyName: row.policyName, metric: row.metric as Schemas["AgentSlaReportRow"]["metric"],
          met: row.met, breached: row.breached, shareMet: row.met + row.breached === 0 ? 0 : row.met / (row.met + row.breached),
        })),
      });
    },
    { before: [...guards.read, requireAdmin] },
  );
}
