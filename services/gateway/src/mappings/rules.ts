// A rule's run on a ticket as the agent API answers it: the admins' history
// (/agent-api/settings/rule-runs) and a ticket's (/agent-api/tickets/{ticketId}/rule-runs).
import type { RuleRun } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { isoTimestamp } from "./timestamps.ts";

export function ruleRunDto(run: RuleRun): Schemas["AgentRuleRun"] {
  return {
    id: run.id,
    ruleId: run.ruleId,
    ruleName: run.ruleName,
    ticketId: run.ticketId,
    trigger: run.trigger,
    eventId: run.eventId,
    outcome: run.outcome as Schemas["AgentRuleRun"]["outcome"],
    depth: run.depth,
    actions: run.actions as unknown as Schemas["Action"][],
    error: run.error ?? null,
    createdAt: isoTimestamp(run.createdAt, "tickets", "rule run createdAt"),
  };
}
