// /agent-api/settings/rules, /rule-order and /rule-runs: the company's automation rules and what
// they did, for its admins. The tickets service keeps the rules, checks them (each problem a 400
// at its path) and runs them; this answers an agent with a 403 before calling anything.
import type { JsonObject } from "@bufbuild/protobuf";
import type { Context } from "koa";
import type { Rule, RuleCallSecret } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { TicketsClient, WebhooksClient } from "../clients.ts";
import { ruleRunDto } from "../mappings/rules.ts";
import { isoTimestamp } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsRulesRoutesDeps {
  tickets: TicketsClient;
  /** The signing secret of rules' callWebhook calls lives with the webhooks' secrets. */
  webhooks: WebhooksClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

function ruleDto(rule: Rule): Schemas["AgentRule"] {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    position: rule.position,
    trigger: rule.trigger as unknown as Schemas["AgentRuleTrigger"],
    conditions: rule.conditions as unknown as Schemas["AgentRuleCondition"][],
    actions: rule.actions as unknown as Schemas["Action"][],
    createdAt: isoTimestamp(rule.createdAt, "tickets", "rule createdAt"),
    updatedAt: isoTimestamp(rule.updatedAt, "tickets", "rule updatedAt"),
    source: rule.source === "tenant_file" ? "tenant_file" : "console",
  };
}


function signingSecretDto(secret: RuleCallSecret | undefined): Schemas["AgentRuleSigningSecret"] {
  if (!secret) throw new Error("webhooks returned no secret");
  return {
    secret: secret.secret,
    previousSecretExpiresAt: secret.previousSecretExpiresAt ? isoTimestamp(secret.previousSecretExpiresAt, "webhooks", "previousSecretExpiresAt") : null,
    updatedAt: isoTimestamp(secret.updatedAt, "webhooks", "rule secret updatedAt"),
  };
}

const companyOf = (ctx: Context) => (ctx.state as AgentSessionState).agentSession.companyId;
const json = (value: unknown) => value as JsonObject;

export function registerAgentSettingsRulesRoutes(api: ApiRoutes, deps: AgentSettingsRulesRoutesDeps): void {
  const { tickets, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  /** The admin and their address: each change is recorded in the audit log (tickets.audit.recorded). */
  const origin = (ctx: Context) => ({ actingUserId: (ctx.state as AgentSessionState).agentSession.user.id, clientAddress: guards.clientAddress(ctx) });

  api.operation<"listAgentSettingsRules", AgentSessionState>(
    "listAgentSettingsRules",
    async (ctx) => {
      const { rules } = await tickets.listRules({ companyId: companyOf(ctx) });
      respond(ctx, 200, { rules: rules.map(ruleDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsRule", AgentSessionState>(
    "createAgentSettingsRule",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const { rule } = await tickets.createRule({
        companyId: companyOf(ctx),
        name: body.name,
        enabled: body.enabled ?? true,
        trigger: json(body.trigger),
        conditions: (body.conditions ?? []).map(json),
        actions: body.actions.map(json),
        ...origin(ctx),
      });
      respond(ctx, 201, ruleDto(rule!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"updateAgentSettingsRule", AgentSessionState>(
    "updateAgentSettingsRule",
    async (ctx) => {
      const { body, params } = ctx.state.validated;
      const { rule } = await tickets.updateRule({
        companyId: companyOf(ctx),
        ruleId: params.ruleId,
        name: body.name,
        enabled: body.enabled,
        trigger: body.trigger === undefined ? undefined : json(body.trigger),
        hasConditions: body.conditions !== undefined,
        conditions: (body.conditions ?? []).map(json),
        hasActions: body.actions !== undefined,
        actions: (body.actions ?? []).map(json),
        ...origin(ctx),
      });
      respond(ctx, 200, ruleDto(rule!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"deleteAgentSettingsRule", AgentSessionState>(
    "deleteAgentSettingsRule",
    async (ctx) => {
      await tickets.deleteRule({ companyId: companyOf(ctx), ruleId: ctx.state.validated.params.ruleId, ...origin(ctx) });
      respond(ctx, 204, "");
    },
    { before: write },
  );

  api.operation<"reorderAgentSettingsRules", AgentSessionState>(
    "reorderAgentSettingsRules",
    async (ctx) => {
      const { rules } = await tickets.reorderRules({ companyId: companyOf(ctx), ruleIds: ctx.state.validated.body.ruleIds, ...origin(ctx) });
      respond(ctx, 200, { rules: rules.map(ruleDto) });
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"listAgentSettingsRuleRuns", AgentSessionState>(
    "listAgentSettingsRuleRuns",
    async (ctx) => {
      const { query } = ctx.state.validated;
      const { runs } = await tickets.listRuleRuns({ companyId: companyOf(ctx), ruleId: query.ruleId, ticketId: query.ticketId, limit: query.limit ?? 50 });
      respond(ctx, 200, { runs: runs.map(ruleRunDto) });
    },
    { before: read },
  );

  api.operation<"getAgentSettingsRuleSigningSecret", AgentSessionState>(
    "getAgentSettingsRuleSigningSecret",
    async (ctx) => {
      const { secret } = await deps.webhooks.getRuleCallSecret({ companyId: companyOf(ctx) });
      respond(ctx, 200, signingSecretDto(secret));
    },
    { before: read },
  );

  api.operation<"rotateAgentSettingsRuleSigningSecret", AgentSessionState>(
    "rotateAgentSettingsRuleSigningSecret",
    async (ctx) => {
      const session = (ctx.state as AgentSessionState).agentSession;
      const { secret } = await deps.webhooks.rotateRuleCallSecret({ companyId: session.companyId, actorUserId: session.user.id, clientAddress: guards.clientAddress(ctx) });
      respond(ctx, 200, signingSecretDto(secret));
    },
    { before: write },
  );
}
