// /agent-api/settings/collectors...: a company's collectors (the forms players fill in on the web
// support page) and which one is a game's contact form, changed by its admins. Content owns them
// (CompanySettingsService checks the admin, applies the collector rules and writes the audit log).
import type { Context } from "koa";
import type { CompanyCollector } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { CompanySettingsClient } from "../clients.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsCollectorsRoutesDeps {
  companySettings: CompanySettingsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

type FieldType = Schemas["AgentSettingsCollector"]["fields"][number]["type"];

export function collectorDto(collector: CompanyCollector): Schemas["AgentSettingsCollector"] {
  return {
    id: collector.id,
    gameId: collector.gameId,
    ref: collector.ref,
    title: collector.title,
    contactForm: collector.contactForm,
    fields: collector.fields.map((field) => ({ key: field.key, label: field.label, type: field.type as FieldType, options: field.options, required: field.required })),
    createdAt: isoTimestamp(collector.createdAt, "content", "collector createdAt"),
    updatedAt: isoTimestamp(collector.updatedAt, "content", "collector updatedAt"),
    retiredAt: isoTimestampOrNull(collector.retiredAt),
  };
}

function fieldMessages(fields: Schemas["AgentSettingsCollectorField"][]) {
  return fields.map((field) => ({ key: field.key, label: field.label, type: field.type, options: field.options ?? [], required: field.required ?? false }));
}

export function registerAgentSettingsCollectorsRoutes(api: ApiRoutes, deps: AgentSettingsCollectorsRoutesDeps): void {
  const { companySettings, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const writeWithBody = [...write, jsonBody(deps.bodyLimitBytes)];
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };

  api.operation<"listAgentSettingsCollectors", AgentSessionState>(
    "listAgentSettingsCollectors",
    async (ctx) => {
      const { collectors } = await companySettings.listCompanyCollectors({ change: changeOf(ctx) });
      respond(ctx, 200, { collectors: collectors.map(collectorDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsCollector", AgentSessionState>(
    "createAgentSettingsCollector",
    async (ctx) => {
      const { gameId, title, ref, fields } = ctx.state.validated.body;
      const { collector } = await companySettings.createCompanyCollector({ change: changeOf(ctx), gameId, title, ref: ref ?? "", fields: fieldMessages(fields) });
      respond(ctx, 201, collectorDto(collector!));
    },
    { before: writeWithBody },
  );

  api.operation<"updateAgentSettingsCollector", AgentSessionState>(
    "updateAgentSettingsCollector",
    async (ctx) => {
      const { title, fields } = ctx.state.validated.body;
      const { collector } = await companySettings.updateCompanyCollector({ change: changeOf(ctx), collectorId: ctx.state.validated.params.collectorId, title, fields: fieldMessages(fields) });
      respond(ctx, 200, collectorDto(collector!));
    },
    { before: writeWithBody },
  );

  api.operation<"retireAgentSettingsCollector", AgentSessionState>(
    "retireAgentSettingsCollector",
    async (ctx) => {
      const { collector } = await companySettings.retireCompanyCollector({ change: changeOf(ctx), collectorId: ctx.state.validated.params.collectorId });
      respond(ctx, 200, collectorDto(collector!));
    },
    { before: write },
  );

  api.operation<"setAgentSettingsContactForm", AgentSessionState>(
    "setAgentSettingsContactForm",
    async (ctx) => {
      const { collectorId } = ctx.state.validated.body;
      const { collectors } = await companySettings.setCompanyGameContactForm({ change: changeOf(ctx), gameId: ctx.state.validated.params.gameId, collectorId: collectorId ?? undefined });
      respond(ctx, 200, { collectors: collectors.map(collectorDto) });
    },
    { before: writeWithBody },
  );
}
