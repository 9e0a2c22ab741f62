// The rules RPCs of tickets.v1 mapped onto rule.service.ts; trigger, conditions and actions travel
// as the agent API's JSON (Struct), checked here like any other input.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { isUuid, validationError } from "@support/errors";
import type { TicketsService } from "@support/proto";
import type { ServiceImpl } from "@connectrpc/connect";
import { adminOrigin } from "../audit/automation-audit.ts";
import type { RuleRun } from "./rule.repository.ts";
import { createRule, deleteRule, listCompanyRules, listRuleRuns, reorderRules, updateRule, type RulesContext } from "./rule.service.ts";
import type { Rule } from "./rule.ts";

function company(companyId: string): string {
  if (!isUuid(companyId)) throw validationError([{ path: "/companyId", message: "must be a uuid" }]);
  return companyId.toLowerCase();
}

function ruleMessage(rule: Rule) {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    position: rule.position,
    trigger: rule.trigger as unknown as JsonObject,
    conditions: rule.conditions as unknown as JsonObject[],
    actions: rule.actions as unknown as JsonObject[],
    createdAt: timestampFromDate(rule.createdAt),
    updatedAt: timestampFromDate(rule.updatedAt),
    source: rule.source,
  };
}

function runMessage(run: RuleRun) {
  return {
    id: run.id,
    ruleId: run.ruleId,
    ruleName: run.ruleName,
    ticketId: run.ticketId,
    trigger: run.trigger,
    eventId: run.eventId,
    outcome: run.outcome,
    depth: run.depth,
    actions: run.actions as unknown as JsonObject[],
    error: run.error ?? undefined,
    createdAt: timestampFromDate(run.createdAt),
  };
}

type RuleRpcs = Pick<ServiceImpl<typeof TicketsService>, "listRules" | "createRule" | "updateRule" | "deleteRule" | "reorderRules" | "listRuleRuns">;

export function ruleHandlers(ctx: RulesContext): RuleRpcs {
  return {
    listRules: async (req) => ({ rules: (await listCompanyRules(ctx, company(req.companyId))).map(ruleMessage) }),
    createRule: async (req) => ({
      rule: ruleMessage(await createRule(ctx, company(req.companyId), { name: req.name, enabled: req.enabled, trigger: req.trigger, conditions: req.conditions, actions: req.actions }, adminOrigin(req.actingUserId, req.clientAddress))),
    }),
    updateRule: async (req) => ({
      rule: ruleMessage(
        await updateRule(ctx, company(req.companyId), req.ruleId, {
          name: req.name,
          enabled: req.enabled,
          trigger: req.trigger,
          conditions: req.hasConditions ? req.conditions : undefined,
          actions: req.hasActions ? req.actions : undefined,
        }, adminOrigin(req.actingUserId, req.clientAddress)),
      ),
    }),
    deleteRule: async (req) => {
      await deleteRule(ctx, company(req.companyId), req.ruleId, adminOrigin(req.actingUserId, req.clientAddress));
      return {};
    },
    reorderRules: async (req) => ({ rules: (await reorderRules(ctx, company(req.companyId), req.ruleIds, adminOrigin(req.actingUserId, req.clientAddress))).map(ruleMessage) }),
    listRuleRuns: async (req) => ({
      runs: (await listRuleRuns(ctx, company(req.companyId), { ruleId: req.ruleId, ticketId: req.ticketId, limit: req.limit })).map(runMessage),
    }),
  };
}
