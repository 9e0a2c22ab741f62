// Rules' use cases: an admin's management of the company's rules (list, create, change, delete,
// order, history), and the engine that runs them. A triggering event runs the company's enabled
// rules of its trigger in their order on each ticket it names (an incident's opening names
// several), in one transaction per ticket under the ticket's row lock: each rule
// sees the ticket as the rules before it left it, its actions go through the ticket's state
// machine (apply-actions) as the rule's system actor, with the same ticket events and outbox
// events as an agent's, and each run is recorded. A redelivered event finds its runs recorded and
// runs nothing twice.
//
// Loops: an event caused by a rule's own actions never runs that rule again (recorded as
// loop_refused); a chain through other rules is bounded by MAX_RULE_DEPTH (recorded as
// depth_limit). The depth of an event caused by rule R is one more than R's last applied run on
// the ticket.
import { isDeepStrictEqual } from "node:util";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { failedPrecondition, isAppError, isUuid, notFound, validationError, type ValidationIssue } from "@support/errors";
import { changedParts, OPERATOR_ORIGIN, recordAutomationAudit, type AuditOrigin } from "../audit/automation-audit.ts";
import type { TicketsContext } from "../context.ts";
import { applyActions } from "../tickets/apply-actions.ts";
import type { Definitions } from "../tickets/field-values.ts";
import { referencedUsers, type TicketAction } from "../tickets/ticket-actions.ts";
import { findTicket, updateTicket } from "../tickets/ticket.repository.ts";
import { ticketEventData, ticketUrl, type Ticket } from "../tickets/ticket.ts";
import {
  countRules, deleteRuleRow, findRule, listFileRules, firstMessageOf, insertRule, insertRun, isFirstPlayerMessage, lastAppliedDepth, listEnabledRules, listRules, listRuns,
  lockCompanyRules, rulesRunForEvent, setPositions, updateRuleRow, type RuleRun,
} from "./rule.repository.ts";
import {
  cannedResponsesOf, checkRule, conditionsMatch, runActions, MAX_RULE_DEPTH, MAX_RULES, ruleActor, ruleOfActor, runMomentId, triggerMatches, type Rule, type RuleDefinition, type RuleInput, type TriggerEvent,
} from "./rule.ts";

export type RulesContext = Pick<TicketsContext, "db" | "logger" | "reference" | "players" | "cannedReplies" | "ruleTargets" | "supportAppUrl">;

function ruleId(id: string): string {
  if (!isUuid(id)) throw notFound("rule not found");
  return id.toLowerCase();
}

/**
 * What a rule's actions name must exist when it is saved: tags and fields in the company (for
 * some game), canned responses among the company's live ones, and callWebhook URLs must be ones
 * the webhooks service sends to. A typo is a 400 now, not a failed run later.
 */
async function checkNames(ctx: RulesContext, companyId: string, rule: RuleDefinition): Promise<void> {
  const issues: { path: string; message: string }[] = [];
  if (rule.actions.some((action) => action.type === "addTags" || action.type === "removeTags" || action.type === "setFields")) {
    const definitions = await ctx.reference.getDefinitions(companyId, { fresh: true });
    const tags = new Set(definitions.tags.map((tag) => tag.name));
    const fields = new Set(definitions.fields.map((field) => field.key));
    rule.actions.forEach((action, index) => {
      if (action.type === "addTags" || action.type === "removeTags") {
        action.tagNames.forEach((name, at) => {
          if (!tags.has(name)) issues.push({ path: `/actions/${index}/tagNames/${at}`, message: `tag "${name}" is not defined` });
        });
      } else if (action.type === "setFields") {
        for (const key of Object.keys(action.fields)) if (!fields.has(key)) issues.push({ path: `/actions/${index}/fields/${key}`, message: `field "${key}" is not defined` });
      }
    });
  }
  if (cannedResponsesOf(rule.actions).length > 0) {
    const known = new Set((await ctx.cannedReplies.list(companyId)).map((response) => response.id));
    rule.actions.forEach((action, index) => {
      if (action.type === "sendCannedResponse" && !known.has(action.cannedResponseId)) {
        issues.push({ path: `/actions/${index}/cannedResponseId`, message: "is not a canned response of the company (unknown or deleted)" });
      }
    });
  }
  const calls = rule.actions.flatMap((action, index) => (action.type === "callWebhook" ? [{ url: action.url, index }] : []));
  if (calls.length > 0) {
    for (const problem of await ctx.ruleTargets.check(companyId, calls.map((call) => call.url))) {
      const call = calls[problem.index];
      if (call) issues.push({ path: `/actions/${call.index}/url`, message: problem.message });
    }
  }
  if (issues.length > 0) throw validationError(issues);
}

/** The id a name that names no one canned response stands for while the rest of its rule is checked. */
const UNRESOLVED_NAME = "00000000-0000-4000-8000-000000000000";

/**
 * A tenant file may name a sendCannedResponse's response by its name (`cannedResponse`) rather
 * than its id: turned into `cannedResponseId` here, a name that is not one live response of the
 * company (unknown, or the same name in two games) named at its path.
 */
async function resolveCannedNames(ctx: RulesContext, companyId: string, input: Record<string, unknown>, issues: ValidationIssue[], at: string): Promise<Record<string, unknown>> {
  if (!Array.isArray(input.actions) || !input.actions.some((action) => typeof action === "object" && action !== null && "cannedResponse" in action)) return input;
  const responses = await ctx.cannedReplies.list(companyId);
  const actions = input.actions.map((action: unknown, index) => {
    if (typeof action !== "object" || action === null || !("cannedResponse" in action)) return action;
    const { cannedResponse: name, ...rest } = action as Record<string, unknown>;
    const path = `${at}/actions/${index}/cannedResponse`;
    if (rest.cannedResponseId !== undefined) issues.push({ path, message: "must not be given with cannedResponseId" });
    const named = responses.filter((response) => response.name === name);
    if (named.length !== 1) {
      issues.push({ path, message: named.length === 0 ? `no canned response of the company is named ${JSON.stringify(name)}` : `names ${named.length} canned responses (one per game): give cannedResponseId` });
      // The rest of the rule is still checked; this action's id stands for the name's issue.
      return { ...rest, cannedResponseId: UNRESOLVED_NAME };
    }
    return { ...rest, cannedResponseId: named[0]!.id };
  });
  return { ...input, actions };
}

/** The issues of a VALIDATION_ERROR under `prefix` (another error is thrown on). */
function issuesUnder(error: unknown, prefix: string): ValidationIssue[] {
  const issues = isAppError(error) ? error.details?.issues : undefined;
  if (!issues) throw error;
  return issues.map((issue) => ({ path: `${prefix}${issue.path}`, message: issue.message }));
}

/**
 * Checks a tenant file's rules (the same checks as the settings', names unique in the list) and
 * answers them or every issue by its path under /rules/<i>; nothing is written.
 */
export async function checkFileRules(ctx: RulesContext, companyId: string, raw: unknown): Promise<{ rules: RuleDefinition[]; issues: ValidationIssue[] }> {
  if (!Array.isArray(raw)) return { rules: [], issues: [{ path: "/rules", message: "must be a list of rules" }] };
  const issues: ValidationIssue[] = [];
  const rules: RuleDefinition[] = [];
  const names = new Map<string, number>();
  for (const [index, input] of raw.entries()) {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      issues.push({ path: `/rules/${index}`, message: "must be a rule object" });
      continue;
    }
    const resolved: ValidationIssue[] = [];
    const named = await resolveCannedNames(ctx, companyId, input as Record<string, unknown>, resolved, `/rules/${index}`);
    issues.push(...resolved);
    // The id of a name that was not resolved is not a second issue.
    const unresolved = new Set(resolved.map((issue) => issue.path.replace(/cannedResponse$/, "cannedResponseId")));
    try {
      const rule = checkRule(named as RuleInput);
      await checkNames(ctx, companyId, rule);
      if (resolved.length > 0) continue;
      const earlier = names.get(rule.name);
      if (earlier !== undefined) issues.push({ path: `/rules/${index}/name`, message: `duplicates the name of /rules/${earlier}/name` });
      names.set(rule.name, index);
      rules.push(rule);
    } catch (error) {
      issues.push(...issuesUnder(error, `/rules/${index}`).filter((issue) => !unresolved.has(issue.path)));
    }
  }
  return { rules, issues };
}

export type FileRuleAction = "created" | "updated" | "unchanged" | "deleted";

const definitionOf = (rule: RuleDefinition) => JSON.parse(JSON.stringify({ name: rule.name, enabled: rule.enabled, trigger: rule.trigger, conditions: rule.conditions, actions: rule.actions })) as Record<string, unknown>;

/** The audit entries of a rule's management (audit/automation-audit.ts): the rule as defined, or what of it changed (with its name). */
const ruleTarget = (rule: Pick<Rule, "id">) => ({ type: "rule" as const, id: rule.id });

function auditCreated(ctx: RulesContext, origin: AuditOrigin | undefined, companyId: string, rule: Rule): Promise<void> {
  return recordAutomationAudit(ctx.db, origin, { action: "rule.created", companyId, target: ruleTarget(rule), before: null, after: definitionOf(rule) });
}

async function auditUpdated(ctx: RulesContext, origin: AuditOrigin | undefined, companyId: string, before: Rule, after: Rule): Promise<void> {
  const changed = changedParts(definitionOf(before), definitionOf(after), ["name"]);
  if (changed) await recordAutomationAudit(ctx.db, origin, { action: "rule.updated", companyId, target: ruleTarget(after), ...changed });
}

function auditDeleted(ctx: RulesContext, origin: AuditOrigin | undefined, companyId: string, rule: Rule): Promise<void> {
  return recordAutomationAudit(ctx.db, origin, { action: "rule.deleted", companyId, target: ruleTarget(rule), before: definitionOf(rule), after: null });
}

/**
 * Makes the company's tenant-file rules match `rules` (checked by checkFileRules), by name: a
 * new name is created last in the order, a listed one updated in place (its position and
 * history kept), and one an earlier file created that is no longer listed deleted. Rules made in
 * the settings are never touched. Run inside the caller's transaction (ctx.db).
 */
export async function applyFileRules(ctx: RulesContext, companyId: string, rules: readonly RuleDefinition[]): Promise<{ name: string; id: string; action: FileRuleAction }[]> {
  await lockCompanyRules(ctx.db, companyId);
  const existing = new Map((await listFileRules(ctx.db, companyId)).map((rule) => [rule.name, rule]));
  const results: { name: string; id: string; action: FileRuleAction }[] = [];
  const listed = new Set(rules.map((rule) => rule.name));
  // Deleted first, so a file that swaps rules never passes the company's limit on the way.
  const gone = [...existing.values()].filter((rule) => !listed.has(rule.name));
  for (const rule of gone) {
    await deleteRuleRow(ctx.db, companyId, rule.id);
    await auditDeleted(ctx, OPERATOR_ORIGIN, companyId, rule);
  }
  let count = await countRules(ctx.db, companyId);
  for (const rule of rules) {
    const current = existing.get(rule.name);
    if (!current) {
      if (count >= MAX_RULES) throw failedPrecondition(`A company has at most ${MAX_RULES} rules: the file's rules and the settings' together`, { type: "TOO_MANY_RULES" });
      count += 1;
      const created = await insertRule(ctx.db, companyId, rule, count, "tenant_file");
      await auditCreated(ctx, OPERATOR_ORIGIN, companyId, created);
      results.push({ name: rule.name, id: created.id, action: "created" });
    } else if (isDeepStrictEqual(definitionOf(current), definitionOf(rule))) {
      results.push({ name: rule.name, id: current.id, action: "unchanged" });
    } else {
      const updated = await updateRuleRow(ctx.db, companyId, current.id, rule);
      await auditUpdated(ctx, OPERATOR_ORIGIN, companyId, current, updated!);
      results.push({ name: rule.name, id: current.id, action: "updated" });
    }
  }
  for (const rule of gone) results.push({ name: rule.name, id: rule.id, action: "deleted" });
  return results;
}

export function listCompanyRules(ctx: RulesContext, companyId: string): Promise<Rule[]> {
  return listRules(ctx.db, companyId);
}

/** A new rule, last in the order; `origin` (an admin in the settings) is recorded in the audit log. */
export async function createRule(ctx: RulesContext, companyId: string, input: RuleInput, origin?: AuditOrigin): Promise<Rule> {
  const rule = checkRule(input);
  await checkNames(ctx, companyId, rule);
  return ctx.db.transaction().execute(async (trx) => {
    await lockCompanyRules(trx, companyId);
    const count = await countRules(trx, companyId);
    if (count >= MAX_RULES) throw failedPrecondition(`A company has at most ${MAX_RULES} rules: delete one first`, { type: "TOO_MANY_RULES" });
    const created = await insertRule(trx, companyId, rule, count + 1);
    await auditCreated({ ...ctx, db: trx }, origin, companyId, created);
    return created;
  });
}

/** Changes the parts given; the result is checked as a whole. A change that changes nothing records nothing in the audit log. */
export async function updateRule(ctx: RulesContext, companyId: string, id: string, input: RuleInput, origin?: AuditOrigin): Promise<Rule> {
  const current = await findRule(ctx.db, companyId, ruleId(id));
  if (!current) throw notFound("rule not found");
  const rule = checkRule({
    name: input.name ?? current.name,
    enabled: input.enabled ?? current.enabled,
    trigger: input.trigger ?? current.trigger,
    conditions: input.conditions ?? current.conditions,
    // Stored actions are the checked ones; checked again they come out the same.
    actions: input.actions ?? current.actions,
  });
  await checkNames(ctx, companyId, rule);
  return ctx.db.transaction().execute(async (trx) => {
    // Under the company's lock: the audit's "before" is the rule as this change found it.
    await lockCompanyRules(trx, companyId);
    const before = await findRule(trx, companyId, current.id);
    const updated = before && (await updateRuleRow(trx, companyId, current.id, rule));
    if (!before || !updated) throw notFound("rule not found");
    await auditUpdated({ ...ctx, db: trx }, origin, companyId, before, updated);
    return updated;
  });
}

export async function deleteRule(ctx: RulesContext, companyId: string, id: string, origin?: AuditOrigin): Promise<void> {
  const key = ruleId(id);
  await ctx.db.transaction().execute(async (trx) => {
    await lockCompanyRules(trx, companyId);
    const rule = await findRule(trx, companyId, key);
    if (!rule || !(await deleteRuleRow(trx, companyId, key))) throw notFound("rule not found");
    await auditDeleted({ ...ctx, db: trx }, origin, companyId, rule);
  });
}

/** Sets the order; the list must name every rule of the company exactly once. The same order again records nothing in the audit log. */
export async function reorderRules(ctx: RulesContext, companyId: string, ruleIds: readonly string[], origin?: AuditOrigin): Promise<Rule[]> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockCompanyRules(trx, companyId);
    const rules = await listRules(trx, companyId);
    const known = new Set(rules.map((rule) => rule.id));
    const given = ruleIds.map((id) => id.toLowerCase());
    const issues: { path: string; message: string }[] = [];
    const seen = new Set<string>();
    given.forEach((id, index) => {
      if (!known.has(id)) issues.push({ path: `/ruleIds/${index}`, message: "is not a rule of the company" });
      else if (seen.has(id)) issues.push({ path: `/ruleIds/${index}`, message: "is given twice" });
      seen.add(id);
    });
    if (issues.length === 0 && seen.size !== known.size) issues.push({ path: "/ruleIds", message: `must name every rule of the company (${known.size}) once` });
    if (issues.length > 0) throw validationError(issues);
    await setPositions(trx, companyId, given);
    const reordered = await listRules(trx, companyId);
    // Recorded by the rules' names, as an admin reads the order (two rules may share a name: compared by id).
    const order = (list: readonly Rule[]) => ({ order: list.map((rule) => rule.name) });
    if (rules.some((rule, index) => reordered[index]?.id !== rule.id)) {
      await recordAutomationAudit(trx, origin, { action: "rule.reordered", companyId, target: { type: "rules", id: companyId }, before: order(rules), after: order(reordered) });
    }
    return reordered;
  });
}

export async function listRuleRuns(ctx: RulesContext, companyId: string, filter: { ruleId?: string | undefined; ticketId?: string | undefined; limit?: number | undefined }): Promise<RuleRun[]> {
  const issues: { path: string; message: string }[] = [];
  if (filter.ruleId !== undefined && !isUuid(filter.ruleId)) issues.push({ path: "/query/ruleId", message: "must be a uuid" });
  if (filter.ticketId !== undefined && !isUuid(filter.ticketId)) issues.push({ path: "/query/ticketId", message: "must be a uuid" });
  const limit = filter.limit === undefined || filter.limit === 0 ? 50 : filter.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) issues.push({ path: "/query/limit", message: "must be an integer from 1 to 200" });
  if (issues.length > 0) throw validationError(issues);
  return listRuns(ctx.db, companyId, { ruleId: filter.ruleId?.toLowerCase(), ticketId: filter.ticketId?.toLowerCase(), limit });
}

function needsDefinitions(actions: readonly TicketAction[]): boolean {
  return actions.some((action) => action.type === "addTags" || action.type === "removeTags" || action.type === "setFields");
}

/** A rule's actions as they run on the ticket, or why they cannot (a canned response gone). */
type PreparedRun = { actions: TicketAction[]; webhookUrls: string[] } | { error: string };

/**
 * Read-only lookups of the rules' actions before the row lock, as an agent's actions do: each
 * canned response's reply for the ticket (content renders it in its language, with its values).
 */
async function prepareRuns(ctx: RulesContext, ticket: Ticket, rules: readonly Rule[]): Promise<Map<string, PreparedRun>> {
  const ids = [...new Set(rules.flatMap((rule) => cannedResponsesOf(rule.actions)))];
  const replies = new Map(
    await Promise.all(
      ids.map(async (id) => [id, await ctx.cannedReplies.render(ticket.companyId, id, { gameId: ticket.gameId, language: ticket.language, runningId: ticket.runningId, playerName: ticket.playerName })] as const),
    ),
  );
  const prepared = new Map<string, PreparedRun>();
  for (const rule of rules) {
    try {
      prepared.set(rule.id, runActions(rule.actions, replies));
    } catch (error) {
      if (!isAppError(error)) throw error;
      prepared.set(rule.id, { error: error.message });
    }
  }
  return prepared;
}

/** The domain event of a callWebhook action: the ticket as the rule left it, for the webhooks service to post. */
function webhookRequested(ctx: RulesContext, rule: Rule, ticket: Ticket, url: string) {
  const { assigneeId: _assignee, ...publicTicket } = ticketEventData(ticket, ticketUrl(ctx.supportAppUrl, ticket.id));
  return newEvent("tickets.rule.webhook_requested", ticket.companyId, {
    ticketId: ticket.id, runningId: ticket.runningId, gameId: ticket.gameId, ruleId: rule.id, ruleName: rule.name, url, ticket: publicTicket, actor: ruleActor(rule.id),
  });
}

/**
 * Runs the company's enabled rules of the trigger on each moment of one event (one ticket each:
 * an incident's opening names many); answers how many runs applied their actions. Each ticket
 * runs in its own transaction, so one ticket's failure does not stop the others; once every
 * ticket had its turn the failure is thrown, the event is delivered again, and the runs recorded
 * per rule, event and ticket make that delivery run only what is missing.
 */
export async function runRules(ctx: RulesContext, moments: readonly TriggerEvent[]): Promise<number> {
  const [first] = moments;
  if (!first) return 0;
  // One event's moments share its company and trigger: one read of the rules serves every ticket.
  const enabled = await listEnabledRules(ctx.db, first.companyId, first.trigger);
  if (enabled.length === 0) return 0;
  let applied = 0;
  const failures: unknown[] = [];
  for (const moment of moments) {
    try {
      applied += await runMoment(ctx, moment, enabled);
    } catch (error) {
      if (moments.length === 1) throw error;
      failures.push(error);
      ctx.logger.warn({ err: error, companyId: moment.companyId, ticketId: moment.ticketId, eventId: moment.eventId }, "rules failed on one ticket of the event; the others go on");
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `rules failed on ${failures.length} of the event's ${moments.length} tickets`);
  return applied;
}

async function runMoment(ctx: RulesContext, moment: TriggerEvent, enabled: readonly Rule[]): Promise<number> {
  const rules = enabled.filter((rule) => triggerMatches(rule.trigger, moment));
  if (rules.length === 0) return 0;
  // A ticket's first message is its creation, not a player's answer.
  if (moment.trigger === "player_message" && (await isFirstPlayerMessage(ctx.db, moment.ticketId, moment.messageEventId!))) return 0;
  return runOnTicket(ctx, moment, rules);
}

/**
 * A time rule's run on a ticket that has been in the rule's status long enough: its moment's id
 * is derived from the rule, the ticket and when the ticket entered the status, so that every
 * replica's sweep agrees on it and the rule runs once per entry.
 */
export async function runTimeRule(ctx: RulesContext, rule: Rule, ticketId: string, enteredAt: Date): Promise<number> {
  const eventId = runMomentId(rule.id, ticketId, enteredAt.toISOString());
  return runOnTicket(ctx, { trigger: "time", eventId, companyId: rule.companyId, ticketId, actor: { type: "system", id: "rules-sweep" } }, [rule]);
}

async function runOnTicket(ctx: RulesContext, moment: TriggerEvent, rules: Rule[]): Promise<number> {
  const { companyId, ticketId } = moment;
  const current = await findTicket(ctx.db, companyId, ticketId);
  if (!current) return 0;

  const readsText = rules.some((rule) => rule.conditions.some((condition) => condition.type === "text"));
  const text = moment.message ?? (readsText ? await firstMessageOf(ctx.db, ticketId) : "");
  // Nothing changes the ticket unless a rule holds on it as it is: when none does, no later rule
  // can hold either, and the event costs no transaction. Under the lock the conditions are
  // evaluated again on the ticket as it is then.
  if (!rules.some((rule) => conditionsMatch(rule.conditions, { ticket: current, text }))) return 0;

  const causedBy = ruleOfActor(moment.actor);
  const depth = causedBy === null ? 0 : ((await lastAppliedDepth(ctx.db, causedBy, ticketId)) ?? 0) + 1;
  // Read-only lookups before the row lock, as an agent's actions do.
  const prepared = await prepareRuns(ctx, current, rules);
  const runnable = [...prepared.values()].flatMap((run) => ("actions" in run ? [run.actions] : []));
  const definitions: Definitions | undefined = runnable.some(needsDefinitions) ? await ctx.reference.getDefinitions(companyId) : undefined;
  const assignees = [...new Set(runnable.flatMap((actions) => actions.flatMap((action, index) => referencedUsers(action, index).map((user) => user.userId))))];
  const access = new Map(await Promise.all(assignees.map(async (userId) => [userId, await ctx.reference.hasGameAccess(companyId, userId, current.gameId)] as const)));

  return ctx.db.transaction().execute(async (trx) => {
    let ticket: Ticket | undefined = await findTicket(trx, companyId, ticketId, true);
    if (!ticket) return 0;
    const done = await rulesRunForEvent(trx, moment.eventId, ticketId);
    let applied = 0;
    for (const rule of rules) {
      if (done.has(rule.id)) continue;
      // A time rule's ticket may have left the status since the sweep read it.
      if (rule.trigger.type === "time" && ticket.status !== rule.trigger.status) continue;
      if (!conditionsMatch(rule.conditions, { ticket, text })) continue;
      const run = { companyId, rule, ticketId, trigger: moment.trigger, eventId: moment.eventId, depth };
      if (causedBy === rule.id) {
        await insertRun(trx, { ...run, outcome: "loop_refused", actions: [], error: null });
        continue;
      }
      if (depth >= MAX_RULE_DEPTH) {
        await insertRun(trx, { ...run, outcome: "depth_limit", actions: [], error: null });
        continue;
      }
      const planned = prepared.get(rule.id)!;
      if ("error" in planned) {
        // A canned response deleted since the rule was saved: nothing of this rule is written.
        await insertRun(trx, { ...run, outcome: "failed", actions: [], error: planned.error });
        continue;
      }
      if (planned.actions.length > 0) {
        let plan;
        try {
          plan = applyActions(ticket, planned.actions, { now: new Date(), apiKeyId: null, actor: ruleActor(rule.id), hasAccess: (userId) => access.get(userId) === true, definitions });
        } catch (error) {
          // The rule's actions do not fit the ticket now (a closed ticket, a tag not of its game, an
          // assignee without the game): nothing of this rule is written, the next rules run.
          if (!isAppError(error)) throw error;
          await insertRun(trx, { ...run, outcome: "failed", actions: [], error: error.message });
          continue;
        }
        const before: Ticket = ticket;
        ticket = await updateTicket(trx, before.id, plan.changes, { ticket: before, events: plan.events });
        await writeEvents(trx, plan.domainEvents);
        if (plan.playerInfo && before.servicePlayerId !== null) await ctx.players.setPlayerInfo(companyId, before.servicePlayerId, plan.playerInfo);
      }
      // The webhooks service posts the ticket as the rule's actions left it.
      const after = ticket;
      await writeEvents(trx, planned.webhookUrls.map((url) => webhookRequested(ctx, rule, after, url)));
      await insertRun(trx, { ...run, outcome: "applied", actions: rule.actions, error: null });
      applied += 1;
    }
    return applied;
  });
}
