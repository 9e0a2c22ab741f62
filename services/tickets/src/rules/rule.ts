// What a rule is and what it decides, without I/O: its trigger, its conditions and its actions;
// the checks of a rule as an admin or a tenant file gives it (every problem named by its JSON
// path); which trigger a domain event is; and whether a ticket matches the conditions. The
// actions are the ticket actions of POST /tickets/{ticketId}/actions, checked by their own
// checks and applied by apply-actions as the rule's system actor, and two of the rule's own:
// sendCannedResponse (content's reply, as ticket actions) and callWebhook (a signed POST that
// the webhooks service makes).
import { createHash } from "node:crypto";
import { RE2JS } from "re2js";
import { failedPrecondition, isAppError, validationError, type ValidationIssue } from "@support/errors";
import type { DomainEvent } from "@support/events";
import { OUTBREAKS_ACTOR } from "../outbreaks/outbreaks.ts";
import { checkActions, type TicketAction, type TicketActionInput } from "../tickets/ticket-actions.ts";
import { CHANNELS, LANGUAGES, PLAYER_TIERS, TICKET_STATUSES, type Actor, type FieldValue, type Ticket, type TicketStatus } from "../tickets/ticket.ts";

/** Most rules per company: each event runs every enabled rule of its trigger, so the list stays short. */
export const MAX_RULES = 100;
export const MAX_CONDITIONS = 20;
export const MAX_RULE_ACTIONS = 20;
const MAX_NAME_LENGTH = 200;
const MAX_LIST_ITEMS = 100;
/** Longest text a `contains` or `matches` condition holds. */
export const MAX_PATTERN_LENGTH = 500;
/**
 * Most rules a chain of rule actions may pass through: rule A's change triggers rule B, whose
 * change triggers A again, and so on. The run past it is recorded as depth_limit and does nothing.
 */
export const MAX_RULE_DEPTH = 5;

/**
 * The triggers. Each event trigger is one line of EVENT_TRIGGERS below (the domain event it
 * reads) and a name here.
 */
export const RULE_TRIGGERS = ["ticket_created", "player_message", "status_changed", "ticket_closed", "sla_warning", "sla_breached", "outbreak", "time"] as const;
export type RuleTriggerType = (typeof RULE_TRIGGERS)[number];

export type RuleTrigger =
  | { type: "ticket_created" }
  | { type: "player_message" }
  /** `to`: only changes to this status; absent: every change. */
  | { type: "status_changed"; to?: TicketStatus }
  | { type: "ticket_closed" }
  /** An SLA clock of the ticket comes within its policy's warning time of its target, or passes it (any metric). */
  | { type: "sla_warning" }
  | { type: "sla_breached" }
  /**
   * The ticket became part of an incident of outbreak detection: each ticket linked when the
   * incident opened, and each ticket that joins it later (once per ticket and incident).
   */
  | { type: "outbreak" }
  /**
   * The ticket has been in `status` for at least `hours` without a player message since it
   * entered it; fires once per ticket each time it enters the status (the sweep, rule.job.ts).
   */
  | { type: "time"; status: OpenStatus; hours: number };

/** Statuses a ticket can stay in (closed is the end: "time" rules act on open tickets). */
export const OPEN_STATUSES = TICKET_STATUSES.filter((status) => status !== "closed") as Exclude<TicketStatus, "closed">[];
export type OpenStatus = Exclude<TicketStatus, "closed">;
/** Longest a time trigger waits: a year. */
export const MAX_TRIGGER_HOURS = 8760;

/** Every condition may be negated with `not: true`. All conditions of a rule must hold. */
export type RuleCondition = { not?: boolean } & (
  | { type: "game"; in: string[] }
  | { type: "language"; in: string[] }
  | { type: "tier"; in: number[] }
  | { type: "channel"; in: string[] }
  | { type: "status"; in: string[] }
  /** The ticket has at least one of the tags. */
  | { type: "tags"; any: string[] }
  /** The custom field (or metadata key) holds one of the values; for a list value, any of its items. */
  | { type: "field"; key: string; in: FieldValue[] }
  | { type: "metadata"; key: string; in: FieldValue[] }
  /** The text (see ruleText) contains the words, ignoring case; or matches the RE2 pattern. */
  | { type: "text"; contains: string }
  | { type: "text"; matches: string }
);

/**
 * The actions only a rule has: a canned response of content sent to the player (its text in the
 * ticket's language and its own actions), and the ticket posted to a URL (by the webhooks
 * service, signed with the company's rule signing secret).
 */
export type RuleOnlyAction = { type: "sendCannedResponse"; cannedResponseId: string } | { type: "callWebhook"; url: string };
export type RuleAction = TicketAction | RuleOnlyAction;

/** Longest URL of a callWebhook action (a webhook subscription's bound). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface RuleDefinition {
  name: string;
  enabled: boolean;
  trigger: RuleTrigger;
  conditions: RuleCondition[];
  actions: RuleAction[];
}

/** Who keeps a rule: the settings, or a tenant file (whose next apply sets the rule back to the file's version). */
export type RuleSource = "console" | "tenant_file";

export interface Rule extends RuleDefinition {
  id: string;
  companyId: string;
  position: number;
  source: RuleSource;
  createdAt: Date;
  updatedAt: Date;
}

export const RULE_OUTCOMES = ["applied", "failed", "loop_refused", "depth_limit"] as const;
export type RuleOutcome = (typeof RULE_OUTCOMES)[number];

/** The system actor of a rule's changes: events it causes name the rule, which is what makes loops detectable. */
export function ruleActor(ruleId: string): Actor {
  return { type: "system", id: `rule:${ruleId}` };
}

/** The rule whose actions caused an event, from the event's actor; null for anyone else. */
export function ruleOfActor(actor: { type: string; id: string | null }): string | null {
  return actor.type === "system" && actor.id !== null && actor.id.startsWith("rule:") ? actor.id.slice("rule:".length) : null;
}

/** A triggering moment on one ticket, read from a domain event. */
export interface TriggerEvent {
  trigger: RuleTriggerType;
  /**
   * The id the moment's runs are recorded under (once per rule): the event's id, or one derived
   * from it and the ticket when the event names several tickets (runMomentId).
   */
  eventId: string;
  companyId: string;
  ticketId: string;
  actor: { type: string; id: string | null };
  /** status_changed: the new status. */
  status?: string;
  /** player_message: the message's ticket event id and text. */
  messageEventId?: string;
  message?: string;
  /** outbreak: the incident the ticket became part of. */
  incidentId?: string;
}

type EventOf<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;
type Moment = Omit<TriggerEvent, "eventId" | "companyId">;
type TriggerReader<T extends DomainEvent["type"]> = (event: EventOf<T>) => Moment | Moment[] | undefined;

/**
 * The domain events that trigger rules, one line each. tickets.ticket.created has no actor field
 * (the player or the API opened it): it is attributed to the player, which no rule is. An
 * incident's opening names several tickets: a moment for each.
 */
const EVENT_TRIGGERS: { [T in DomainEvent["type"]]?: TriggerReader<T> } = {
  "tickets.ticket.created": (e) => ({ trigger: "ticket_created", ticketId: e.data.id, actor: { type: "player", id: null } }),
  "tickets.ticket.message_added": (e) =>
    e.data.type === "PLAYER_MESSAGE" ? { trigger: "player_message", ticketId: e.data.ticketId, actor: e.data.actor, messageEventId: e.data.eventId, message: e.data.message } : undefined,
  "tickets.ticket.status_changed": (e) => ({ trigger: "status_changed", ticketId: e.data.ticketId, actor: e.data.actor, status: e.data.to }),
  "tickets.ticket.closed": (e) => ({ trigger: "ticket_closed", ticketId: e.data.ticketId, actor: e.data.actor }),
  "tickets.ticket.sla_warning": (e) => ({ trigger: "sla_warning", ticketId: e.data.ticketId, actor: e.data.actor }),
  "tickets.ticket.sla_breached": (e) => ({ trigger: "sla_breached", ticketId: e.data.ticketId, actor: e.data.actor }),
  "tickets.incident.opened": (e) => e.data.ticketIds.map((ticketId) => ({ trigger: "outbreak", ticketId, actor: OUTBREAKS_ACTOR, incidentId: e.data.incidentId })),
  "tickets.incident.ticket_joined": (e) => ({ trigger: "outbreak", ticketId: e.data.ticketId, actor: OUTBREAKS_ACTOR, incidentId: e.data.incidentId }),
};

/** The event types rules listen to (the consumer's filter). */
export const TRIGGERING_EVENT_TYPES: readonly string[] = Object.keys(EVENT_TRIGGERS);

/**
 * A moment's id derived from its parts (an event and a ticket; a time rule, a ticket and when it
 * entered the status): the same parts give the same id on every replica and every delivery.
 */
export function runMomentId(...parts: string[]): string {
  const digest = createHash("sha256").update(parts.join(":")).digest("hex");
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-8${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
}

/**
 * The moments of a domain event: none for an event that triggers no rule, one per ticket
 * otherwise. An event naming several tickets (an incident's opening) gives each ticket's moment
 * an id of its own, derived from the event and the ticket: runs are unique per rule and moment
 * id, so each ticket runs each rule once, and a redelivered event runs none again.
 */
export function triggersOf(event: DomainEvent): TriggerEvent[] {
  const read = EVENT_TRIGGERS[event.type] as TriggerReader<DomainEvent["type"]> | undefined;
  const found = read?.(event as never);
  if (found === undefined) return [];
  if (!Array.isArray(found)) return [{ ...found, eventId: event.id, companyId: event.companyId }];
  return found.map((moment) => ({ ...moment, eventId: runMomentId(event.id, moment.ticketId), companyId: event.companyId }));
}

/** Whether the rule's trigger is this moment (a status filter included). */
export function triggerMatches(trigger: RuleTrigger, moment: TriggerEvent): boolean {
  if (trigger.type !== moment.trigger) return false;
  if (trigger.type === "status_changed" && trigger.to !== undefined) return moment.status === trigger.to;
  return true;
}

// ---- Checks ----

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownKeys(value: Record<string, Json>, allowed: readonly string[], path: string, issues: ValidationIssue[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) issues.push({ path: `${path}/${key}`, message: "is not a known property" });
}

function stringList(value: Json, path: string, issues: ValidationIssue[], allowed?: readonly string[]): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST_ITEMS) {
    issues.push({ path, message: `must be a list of 1 to ${MAX_LIST_ITEMS} items` });
    return [];
  }
  value.forEach((item, index) => {
    if (typeof item !== "string" || item.trim() === "") issues.push({ path: `${path}/${index}`, message: "must be a non-blank string" });
    else if (allowed && !allowed.includes(item)) issues.push({ path: `${path}/${index}`, message: `must be one of ${allowed.join(", ")}` });
  });
  return value as string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Compiles a `matches` pattern with RE2 (linear time: no pattern makes matching slow), ignoring case. */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
}

function checkTrigger(value: Json, issues: ValidationIssue[]): RuleTrigger {
  const path = "/trigger";
  if (!isObject(value) || typeof value.type !== "string") {
    issues.push({ path: `${path}/type`, message: `must be one of ${RULE_TRIGGERS.join(", ")}` });
    return { type: "ticket_created" };
  }
  if (!(RULE_TRIGGERS as readonly string[]).includes(value.type)) {
    issues.push({ path: `${path}/type`, message: `must be one of ${RULE_TRIGGERS.join(", ")}` });
    return { type: "ticket_created" };
  }
  if (value.type === "status_changed") {
    unknownKeys(value, ["type", "to"], path, issues);
    if (value.to === undefined || value.to === null) return { type: "status_changed" };
    if (typeof value.to !== "string" || !(TICKET_STATUSES as readonly string[]).includes(value.to)) {
      issues.push({ path: `${path}/to`, message: `must be one of ${TICKET_STATUSES.join(", ")}` });
      return { type: "status_changed" };
    }
    return { type: "status_changed", to: value.to as TicketStatus };
  }
  if (value.type === "time") {
    unknownKeys(value, ["type", "status", "hours"], path, issues);
    if (typeof value.status !== "string" || !(OPEN_STATUSES as readonly string[]).includes(value.status)) {
      issues.push({ path: `${path}/status`, message: `must be one of ${OPEN_STATUSES.join(", ")}` });
    }
    if (typeof value.hours !== "number" || !Number.isFinite(value.hours) || value.hours <= 0 || value.hours > MAX_TRIGGER_HOURS) {
      issues.push({ path: `${path}/hours`, message: `must be a number of hours above 0, at most ${MAX_TRIGGER_HOURS}` });
    }
    return { type: "time", status: value.status as OpenStatus, hours: value.hours as number };
  }
  unknownKeys(value, ["type"], path, issues);
  return { type: value.type as "ticket_created" };
}

function checkValues(value: Json, path: string, issues: ValidationIssue[]): FieldValue[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST_ITEMS) {
    issues.push({ path, message: `must be a list of 1 to ${MAX_LIST_ITEMS} values` });
    return [];
  }
  value.forEach((item, index) => {
    if (!(typeof item === "string" || typeof item === "boolean" || (typeof item === "number" && Number.isFinite(item)))) {
      issues.push({ path: `${path}/${index}`, message: "must be a string, a number or a boolean" });
    }
  });
  return value as FieldValue[];
}

function checkCondition(value: Json, path: string, issues: ValidationIssue[]): RuleCondition | undefined {
  if (!isObject(value)) {
    issues.push({ path, message: "must be an object" });
    return undefined;
  }
  if (value.not !== undefined && typeof value.not !== "boolean") issues.push({ path: `${path}/not`, message: "must be a boolean" });
  const not = value.not === true ? { not: true } : {};
  const before = issues.length;
  switch (value.type) {
    case "game": {
      unknownKeys(value, ["type", "not", "in"], path, issues);
      const ids = stringList(value.in, `${path}/in`, issues);
      ids.forEach((id, index) => {
        if (typeof id === "string" && !UUID.test(id)) issues.push({ path: `${path}/in/${index}`, message: "must be a game id (uuid)" });
      });
      return issues.length > before ? undefined : { type: "game", in: ids.map((id) => id.toLowerCase()), ...not };
    }
    case "language":
    case "channel":
    case "status": {
      unknownKeys(value, ["type", "not", "in"], path, issues);
      const allowed = value.type === "language" ? LANGUAGES : value.type === "channel" ? CHANNELS : TICKET_STATUSES;
      const items = stringList(value.in, `${path}/in`, issues, allowed);
      return issues.length > before ? undefined : { type: value.type, in: items, ...not };
    }
    case "tier": {
      unknownKeys(value, ["type", "not", "in"], path, issues);
      if (!Array.isArray(value.in) || value.in.length === 0 || value.in.some((tier) => !(PLAYER_TIERS as readonly unknown[]).includes(tier))) {
        issues.push({ path: `${path}/in`, message: "must be a list of tiers (1, 2, 3)" });
        return undefined;
      }
      return { type: "tier", in: value.in as number[], ...not };
    }
    case "tags": {
      unknownKeys(value, ["type", "not", "any"], path, issues);
      const names = stringList(value.any, `${path}/any`, issues);
      return issues.length > before ? undefined : { type: "tags", any: names, ...not };
    }
    case "field":
    case "metadata": {
      unknownKeys(value, ["type", "not", "key", "in"], path, issues);
      if (typeof value.key !== "string" || value.key.trim() === "" || value.key.length > 100) issues.push({ path: `${path}/key`, message: "must be a non-blank key of at most 100 characters" });
      const values = checkValues(value.in, `${path}/in`, issues);
      return issues.length > before ? undefined : { type: value.type, key: value.key as string, in: values, ...not };
    }
    case "text": {
      unknownKeys(value, ["type", "not", "contains", "matches"], path, issues);
      const given = ["contains", "matches"].filter((key) => value[key] !== undefined);
      if (given.length !== 1) {
        issues.push({ path, message: "must have exactly one of contains or matches" });
        return undefined;
      }
      const key = given[0] as "contains" | "matches";
      const text = value[key];
      if (typeof text !== "string" || text.trim() === "" || text.length > MAX_PATTERN_LENGTH) {
        issues.push({ path: `${path}/${key}`, message: `must be a non-blank string of at most ${MAX_PATTERN_LENGTH} characters` });
        return undefined;
      }
      if (key === "matches") {
        try {
          compilePattern(text);
        } catch (error) {
          issues.push({ path: `${path}/matches`, message: `is not a valid RE2 pattern: ${error instanceof Error ? error.message : String(error)}` });
          return undefined;
        }
        return { type: "text", matches: text, ...not };
      }
      return { type: "text", contains: text, ...not };
    }
    default:
      issues.push({ path: `${path}/type`, message: "must be one of game, language, tier, channel, status, tags, field, metadata, text" });
      return undefined;
  }
}

/** The issues of a VALIDATION_ERROR thrown by `work`, added to `issues` (another error is thrown on). */
function collectIssues<T>(work: () => T, issues: ValidationIssue[], mapPath: (path: string) => string = (path) => path): T | undefined {
  try {
    return work();
  } catch (error) {
    if (isAppError(error) && error.details?.type === "VALIDATION_ERROR" && "issues" in error.details) {
      issues.push(...(error.details.issues as ValidationIssue[]).map((issue) => ({ ...issue, path: mapPath(issue.path) })));
      return undefined;
    }
    throw error;
  }
}

/** The action of a rule only (sendCannedResponse, callWebhook), checked; undefined for a ticket action. */
function ruleOnlyAction(action: Record<string, Json>, at: string, issues: ValidationIssue[]): RuleOnlyAction | undefined {
  if (action.type === "sendCannedResponse") {
    unknownKeys(action, ["type", "cannedResponseId"], at, issues);
    if (typeof action.cannedResponseId !== "string" || !UUID.test(action.cannedResponseId)) issues.push({ path: `${at}/cannedResponseId`, message: "must be a canned response id (uuid)" });
    return { type: "sendCannedResponse", cannedResponseId: String(action.cannedResponseId).toLowerCase() };
  }
  if (action.type === "callWebhook") {
    unknownKeys(action, ["type", "url"], at, issues);
    if (typeof action.url !== "string" || action.url.trim() === "" || action.url.length > MAX_WEBHOOK_URL_LENGTH) {
      issues.push({ path: `${at}/url`, message: `must be a URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters` });
    }
    return { type: "callWebhook", url: String(action.url ?? "").trim() };
  }
  return undefined;
}

/** Paths of checkActions are /actions/<i>/...: the same as in a rule's body (the ticket actions' indexes mapped back to the rule's). */
function checkRuleActions(value: Json, issues: ValidationIssue[]): RuleAction[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_RULE_ACTIONS) {
    issues.push({ path: "/actions", message: `must be a list of 1 to ${MAX_RULE_ACTIONS} actions` });
    return [];
  }
  const inputs: TicketActionInput[] = [];
  const inputIndexes: number[] = [];
  const actions: (RuleOnlyAction | undefined)[] = [];
  value.forEach((action, index) => {
    const at = `/actions/${index}`;
    actions.push(undefined);
    if (!isObject(action) || typeof action.type !== "string") {
      issues.push({ path: `${at}/type`, message: "is not a known action type" });
      return;
    }
    const own = ruleOnlyAction(action, at, issues);
    if (own) {
      actions[index] = own;
      return;
    }
    // A rule's actions are the rule's: nobody else is named as their author, and a rule has no
    // uploads to attach.
    if (action.userId !== undefined) issues.push({ path: `${at}/userId`, message: "is not accepted: a rule's actions are attributed to the rule" });
    if (Array.isArray(action.attachments) && action.attachments.length > 0) issues.push({ path: `${at}/attachments`, message: "is not accepted in a rule" });
    inputs.push(actionInput(action, at, issues));
    inputIndexes.push(index);
  });
  if (issues.length > 0) return [];
  if (inputs.length === 0) return actions as RuleAction[];
  const checked = collectIssues(() => checkActions(inputs), issues, (path) => path.replace(/^\/actions\/(\d+)/, (_whole, at: string) => `/actions/${inputIndexes[Number(at)]}`));
  if (!checked) return [];
  return actions.map((own, index) => own ?? checked[inputIndexes.indexOf(index)]!);
}

/**
 * A canned reply (content's RenderCannedReply: the public API's ticket actions as JSON) as
 * ticket actions; throws a VALIDATION_ERROR when content answered something this version does
 * not take.
 */
export function replyActions(json: readonly unknown[]): TicketAction[] {
  const issues: ValidationIssue[] = [];
  const inputs = json.map((action, index) => (isObject(action) ? actionInput(action, `/actions/${index}`, issues) : ({ type: "unknown" } as const)));
  if (issues.length > 0) throw validationError(issues);
  return checkActions(inputs);
}

/**
 * A rule's actions as they run on one ticket: the ticket actions in order (a canned response's
 * reply in its place), checked together (one status action per run), and the URLs its
 * callWebhook actions post the ticket to. `replies`: each canned response's reply for the
 * ticket, undefined when it is not found.
 */
export function runActions(actions: readonly RuleAction[], replies: ReadonlyMap<string, readonly unknown[] | undefined>): { actions: TicketAction[]; webhookUrls: string[] } {
  const ticketActions: TicketAction[] = [];
  const webhookUrls: string[] = [];
  actions.forEach((action, index) => {
    if (action.type === "callWebhook") webhookUrls.push(action.url);
    else if (action.type === "sendCannedResponse") {
      const reply = replies.get(action.cannedResponseId);
      if (reply === undefined) {
        throw failedPrecondition(`canned response ${action.cannedResponseId} of /actions/${index} is not found: deleted, or not for this ticket's game`, { type: "RULE_ACTION_UNAVAILABLE" });
      }
      ticketActions.push(...replyActions(reply));
    } else ticketActions.push(action);
  });
  if (ticketActions.length === 0) return { actions: [], webhookUrls };
  const issues: ValidationIssue[] = [];
  const checked = collectIssues(() => checkActions(ticketActions), issues);
  if (!checked) throw failedPrecondition(`the actions do not go together on this ticket: ${issues.map((issue) => issue.message).join("; ")}`, { type: "RULE_ACTION_UNAVAILABLE" });
  return { actions: checked, webhookUrls };
}

/** The canned responses a rule's actions name. */
export function cannedResponsesOf(actions: readonly RuleAction[]): string[] {
  return actions.flatMap((action) => (action.type === "sendCannedResponse" ? [action.cannedResponseId] : []));
}

/** The JSON of one action as checkActions takes it; wrong types of its properties are named here. */
function actionInput(action: Record<string, Json>, at: string, issues: ValidationIssue[]): TicketActionInput {
  const str = (key: string): string => {
    if (typeof action[key] !== "string") issues.push({ path: `${at}/${key}`, message: "must be a string" });
    return String(action[key] ?? "");
  };
  const keys = (allowed: string[]) => unknownKeys(action, ["type", "userId", ...allowed], at, issues);
  switch (action.type) {
    case "addTags":
    case "removeTags":
      keys(["tagNames"]);
      if (!Array.isArray(action.tagNames) || action.tagNames.some((name) => typeof name !== "string")) issues.push({ path: `${at}/tagNames`, message: "must be a list of tag names" });
      return { type: action.type, tagNames: Array.isArray(action.tagNames) ? (action.tagNames as string[]) : [] };
    case "setFields":
      keys(["fields"]);
      if (!isObject(action.fields)) issues.push({ path: `${at}/fields`, message: "must be an object" });
      return { type: "setFields", fields: isObject(action.fields) ? action.fields : {} };
    case "setOnHold":
      keys(["onHold"]);
      if (typeof action.onHold !== "boolean") issues.push({ path: `${at}/onHold`, message: "must be a boolean" });
      return { type: "setOnHold", onHold: action.onHold === true };
    case "setStatus":
      keys(["status"]);
      return { type: "setStatus", status: str("status") };
    case "setPlayerInfo": {
      keys(["player"]);
      const player = isObject(action.player) ? action.player : {};
      if (!isObject(action.player)) issues.push({ path: `${at}/player`, message: "must be an object" });
      if (player.name !== undefined && typeof player.name !== "string") issues.push({ path: `${at}/player/name`, message: "must be a string" });
      if (player.tier !== undefined && typeof player.tier !== "number") issues.push({ path: `${at}/player/tier`, message: "must be 1, 2 or 3" });
      return { type: "setPlayerInfo", player: { name: player.name as string | undefined, tier: player.tier as number | undefined } };
    }
    case "sendMessage":
    case "addPrivateNote":
      keys(["message", "attachments"]);
      return { type: action.type, message: str("message"), attachments: [] };
    case "resolveTicket":
    case "rejectTicket":
    case "unassignTicket":
      keys([]);
      return { type: action.type };
    case "assignTicket":
      keys(["assigneeId"]);
      return { type: "assignTicket", assigneeId: str("assigneeId") };
    default:
      issues.push({ path: `${at}/type`, message: "is not a known action type" });
      return { type: "unknown" };
  }
}

/** The parts of a rule an admin sends; absent parts of an update keep their value. */
export interface RuleInput {
  name?: Json;
  enabled?: Json;
  trigger?: Json;
  conditions?: Json;
  actions?: Json;
}

/** Checks a whole rule (a creation, or an update merged over the stored rule); throws one VALIDATION_ERROR naming every problem. */
export function checkRule(input: RuleInput): RuleDefinition {
  const issues: ValidationIssue[] = [];
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (name === "" || name.length > MAX_NAME_LENGTH) issues.push({ path: "/name", message: `must be a non-blank string of at most ${MAX_NAME_LENGTH} characters` });
  if (input.enabled !== undefined && typeof input.enabled !== "boolean") issues.push({ path: "/enabled", message: "must be a boolean" });
  const trigger = checkTrigger(input.trigger, issues);
  const conditions: RuleCondition[] = [];
  const rawConditions = input.conditions ?? [];
  if (!Array.isArray(rawConditions) || rawConditions.length > MAX_CONDITIONS) {
    issues.push({ path: "/conditions", message: `must be a list of at most ${MAX_CONDITIONS} conditions` });
  } else {
    rawConditions.forEach((condition, index) => {
      const checked = checkCondition(condition, `/conditions/${index}`, issues);
      if (checked) conditions.push(checked);
    });
  }
  const actions = checkRuleActions(input.actions, issues);
  if (issues.length > 0) throw validationError(issues);
  return { name, enabled: input.enabled !== false, trigger, conditions, actions };
}

// ---- Matching ----

/** What conditions read besides the ticket: the text of the moment (see docs/automation.md). */
export interface MatchInput {
  ticket: Ticket;
  /** player_message: that message; every other trigger: the ticket's first message. */
  text: string;
}

function normalized(text: string): string {
  return text.normalize("NFKC").toLocaleLowerCase("und");
}

function valueMatches(value: FieldValue | undefined, wanted: readonly FieldValue[]): boolean {
  if (value === undefined) return false;
  const items = Array.isArray(value) ? value : [value];
  return items.some((item) => wanted.some((candidate) => candidate === item || (typeof candidate !== typeof item && String(candidate) === String(item))));
}

const patterns = new Map<string, RE2JS>();

/** The compiled pattern, kept for the next event (rules change rarely; the cache is bounded). */
function pattern(source: string): RE2JS {
  let compiled = patterns.get(source);
  if (!compiled) {
    if (patterns.size >= 1000) patterns.clear();
    compiled = compilePattern(source);
    patterns.set(source, compiled);
  }
  return compiled;
}

function holds(condition: RuleCondition, { ticket, text }: MatchInput): boolean {
  switch (condition.type) {
    case "game":
      return condition.in.includes(ticket.gameId);
    case "language":
      return condition.in.includes(ticket.language);
    case "tier": {
      const tier = typeof ticket.metadata.playerTier === "number" ? ticket.metadata.playerTier : 1;
      return condition.in.includes(tier);
    }
    case "channel":
      return ticket.channels.some((channel) => condition.in.includes(channel));
    case "status":
      return condition.in.includes(ticket.status);
    case "tags":
      return ticket.tags.some((tag) => condition.any.includes(tag));
    case "field":
      return valueMatches(ticket.fields[condition.key], condition.in);
    case "metadata":
      return valueMatches(ticket.metadata[condition.key], condition.in);
    case "text":
      return "contains" in condition ? normalized(text).includes(normalized(condition.contains)) : pattern(condition.matches).matcher(text).find();
  }
}

/** Whether every condition holds (a rule without conditions always matches). */
export function conditionsMatch(conditions: readonly RuleCondition[], input: MatchInput): boolean {
  return conditions.every((condition) => holds(condition, input) !== (condition.not === true));
}
