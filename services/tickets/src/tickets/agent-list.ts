// The support application's ticket lists: the built-in views and the filters agents add to the
// public list's, parsed and checked in one place. A view is a set of conditions like any other
// filter (all of them must match); the repository turns the same conditions into SQL for a
// list page and for the views' counts, so a view lists exactly the tickets it counts.
import { isAppError, isUuid, validationError, type ValidationIssue } from "@support/errors";
import type { ListOrder, ListSort } from "./cursor.ts";
import { parseListQuery, type ListQuery, type RawListQuery } from "./list-query.ts";
import { parseTicketSearch, type TicketSearch } from "./search.ts";
import { CHANNELS, isOneOf, LANGUAGES, PLAYER_TIERS, TICKET_STATUSES, type Channel, type Language, type TicketStatus } from "./ticket.ts";

export const AGENT_VIEWS = ["mine", "unassigned", "open", "waiting", "on_hold", "closed_7d"] as const;
export type AgentView = (typeof AGENT_VIEWS)[number];

/** Every status but closed. */
export const OPEN_STATUSES: readonly TicketStatus[] = TICKET_STATUSES.filter((status) => status !== "closed");

/** How far back "closed in the last 7 days" looks. */
export const RECENTLY_CLOSED_MS = 7 * 86_400_000;

export type AssigneeCondition = { type: "user"; id: string } | { type: "nobody" };

/** What a view selects, as conditions that must all hold. */
export interface ViewConditions {
  /** The status is one of these. */
  statuses: readonly TicketStatus[];
  assignee?: AssigneeCondition;
  /** Closed at or after this instant (with statuses ["closed"]). */
  closedSince?: Date;
}

/**
 * The built-in views, for the user `userId` at `now`:
 * - mine: open (not closed) and assigned to the user;
 * - unassigned: open and assigned to nobody (new, unassigned, and waiting or on hold without an assignee);
 * - open ("All open"): every status but closed;
 * - waiting: status waiting (waiting for the player);
 * - on_hold: status on_hold;
 * - closed_7d: closed at most 7 days before `now` (whatever the resolution).
 */
export function viewConditions(view: AgentView, userId: string, now: Date): ViewConditions {
  switch (view) {
    case "mine":
      return { statuses: OPEN_STATUSES, assignee: { type: "user", id: userId } };
    case "unassigned":
      return { statuses: OPEN_STATUSES, assignee: { type: "nobody" } };
    case "open":
      return { statuses: OPEN_STATUSES };
    case "waiting":
      return { statuses: ["waiting"] };
    case "on_hold":
      return { statuses: ["on_hold"] };
    case "closed_7d":
      return { statuses: ["closed"], closedSince: new Date(now.getTime() - RECENTLY_CLOSED_MS) };
  }
}

export interface RawAgentListQuery extends RawListQuery {
  assignee?: string | undefined;
  language?: string | undefined;
  tier?: string | undefined;
  channel?: string | undefined;
  q?: string | undefined;
  sort?: string | undefined;
  view?: string | undefined;
}

/** An agent list's query: the public list's plus the agents' filters, within the user's games. */
export interface AgentListQuery extends ListQuery {
  /** Only tickets of these games (the user's); empty: none. */
  gameIds: string[];
  sort: ListSort;
  view?: ViewConditions;
  assignee?: AssigneeCondition;
  language?: Language;
  tier?: number;
  channel?: Channel;
  /** The search of `q` (search.ts). */
  search?: TicketSearch;
}

export const MAX_TEXT_LENGTH = 200;
const DEFAULT_ORDER: ListOrder = "desc";

export function parseAgentListQuery(
  raw: RawAgentListQuery,
  context: { companyId: string; userId: string; gameIds: readonly string[]; cursorSecret: string; now: Date },
): AgentListQuery {
  const issues: ValidationIssue[] = [];
  let sort: ListSort = "createdAt";
  if (raw.sort !== undefined) {
    if (raw.sort === "createdAt" || raw.sort === "lastActivityAt" || raw.sort === "slaDueAt") sort = raw.sort;
    else issues.push({ path: "/query/sort", message: "must be createdAt, lastActivityAt or slaDueAt" });
  }

  let base: ListQuery | undefined;
  try {
    base = parseListQuery(raw, { companyId: context.companyId, cursorSecret: context.cursorSecret, sort, defaultOrder: DEFAULT_ORDER });
  } catch (error) {
    if (!isAppError(error) || error.details?.issues === undefined) throw error;
    issues.push(...error.details.issues);
  }

  const query: Partial<AgentListQuery> = {};
  if (raw.view !== undefined) {
    if (isOneOf(AGENT_VIEWS, raw.view)) query.view = viewConditions(raw.view, context.userId, context.now);
    else issues.push({ path: "/query/view", message: `must be one of ${AGENT_VIEWS.join(", ")}` });
  }
  if (raw.assignee !== undefined) {
    if (raw.assignee === "me") query.assignee = { type: "user", id: context.userId };
    else if (raw.assignee === "nobody") query.assignee = { type: "nobody" };
    else if (isUuid(raw.assignee)) query.assignee = { type: "user", id: raw.assignee.toLowerCase() };
    else issues.push({ path: "/query/assignee", message: "must be me, nobody or a user id" });
  }
  if (raw.language !== undefined) {
    if (isOneOf(LANGUAGES, raw.language)) query.language = raw.language;
    else issues.push({ path: "/query/language", message: "must be a language code" });
  }
  if (raw.tier !== undefined) {
    const tier = Number(raw.tier);
    if (/^\d$/.test(raw.tier) && isOneOf(PLAYER_TIERS, tier)) query.tier = tier;
    else issues.push({ path: "/query/tier", message: "must be 1, 2 or 3" });
  }
  if (raw.channel !== undefined) {
    if (isOneOf(CHANNELS, raw.channel)) query.channel = raw.channel;
    else issues.push({ path: "/query/channel", message: `must be one of ${CHANNELS.join(", ")}` });
  }
  if (raw.q !== undefined) {
    const text = raw.q.trim();
    if (text.length > MAX_TEXT_LENGTH) issues.push({ path: "/query/q", message: `must be at most ${MAX_TEXT_LENGTH} characters` });
    // Postgres cannot compare text holding U+0000.
    else if (text.includes("\u0000")) issues.push({ path: "/query/q", message: "must not contain NUL characters" });
    else if (text !== "") query.search = parseTicketSearch(text);
  }

  if (issues.length > 0 || base === undefined) throw validationError(issues);
  return { ...base, ...query, sort, gameIds: context.gameIds.filter(isUuid).map((id) => id.toLowerCase()) };
}
