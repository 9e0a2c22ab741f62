// GET /tickets query as the client sent it, parsed and checked in one place: the
// JSON-encoded filters, the dates (`YYYY-MM-DD` or RFC 3339; a date as createdBefore
// includes that whole day), order, cursor and limit. Every bad value is named /query/<name>.
import { isUuid, validationError, type ValidationIssue } from "@support/errors";
import { decodeCursor, type CursorKey, type ListOrder, type ListSort } from "./cursor.ts";
import { fieldShapeIssues, isCalendarDate, isDateTime } from "./field-values.ts";
import { isOneOf, TICKET_STATUSES, type FieldValues, type TicketStatus } from "./ticket.ts";

export interface RawListQuery {
  playerId?: string | undefined;
  email?: string | undefined;
  gameId?: string | undefined;
  ticketId?: string | undefined;
  tags?: string | undefined;
  fields?: string | undefined;
  status?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  order?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** An instant bound for created_at; `exclusive` only for a date-only createdBefore (start of the next day). */
export interface TimeBound {
  at: Date;
  exclusive: boolean;
}

export interface ListQuery {
  playerId?: string;
  email?: string;
  gameId?: string;
  ticketId?: string;
  tags?: string[];
  fields?: FieldValues;
  statuses?: TicketStatus[];
  createdAfter?: TimeBound;
  createdBefore?: TimeBound;
  order: ListOrder;
  cursor?: CursorKey;
  limit: number;
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  // A `\u0000` escape would reach Postgres, which cannot store or compare U+0000 in text.
  return containsNul(value) ? { ok: false } : { ok: true, value };
}

function containsNul(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.includes("\u0000")) return true;
    } else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes("\u0000")) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

/**
 * `YYYY-MM-DD` (UTC) or an RFC 3339 date-time. A date as the lower bound is the start of that
 * day; as the upper bound it includes the whole day, i.e. everything before the next day.
 */
export function parseTimeBound(value: string, side: "after" | "before"): TimeBound | undefined {
  if (isCalendarDate(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    if (side === "after") return { at: start, exclusive: false };
    return { at: new Date(start.getTime() + 86_400_000), exclusive: true };
  }
  if (isDateTime(value)) {
    // Sub-millisecond digits are dropped: stored creation times have millisecond precision.
    return { at: new Date(value), exclusive: false };
  }
  return undefined;
}

/**
 * `context.sort` and `context.defaultOrder` serve the agent lists, which may sort by last
 * activity and list the newest first by default; the cursor is checked against both.
 */
export function parseListQuery(
  raw: RawListQuery,
  context: { companyId: string; cursorSecret: string; sort?: ListSort; defaultOrder?: ListOrder },
): ListQuery {
  const issues: ValidationIssue[] = [];
  const query: ListQuery = { order: context.defaultOrder ?? "asc", limit: DEFAULT_LIMIT };

  if (raw.playerId !== undefined) query.playerId = raw.playerId;
  if (raw.email !== undefined) query.email = raw.email;
  for (const name of ["gameId", "ticketId"] as const) {
    const value = raw[name];
    if (value === undefined) continue;
    if (isUuid(value)) query[name] = value.toLowerCase();
    else issues.push({ path: `/query/${name}`, message: "must be a uuid" });
  }

  if (raw.tags !== undefined) {
    const parsed = parseJson(raw.tags);
    if (parsed.ok && Array.isArray(parsed.value) && parsed.value.every((tag) => typeof tag === "string")) {
      if (parsed.value.length > 0) query.tags = [...new Set(parsed.value as string[])];
    } else {
      issues.push({ path: "/query/tags", message: "must be a JSON array of tag names, e.g. [\"bug\"]" });
    }
  }

  if (raw.fields !== undefined) {
    const parsed = parseJson(raw.fields);
    const value = parsed.ok ? parsed.value : undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const shapeIssues = fieldShapeIssues(value as Record<string, unknown>, "/query/fields");
      issues.push(...shapeIssues);
      if (shapeIssues.length === 0 && Object.keys(value).length > 0) query.fields = value as FieldValues;
    } else {
      issues.push({ path: "/query/fields", message: "must be a JSON object of field keys and values, e.g. {\"level\":3}" });
    }
  }

  if (raw.status !== undefined) {
    const parsed = parseJson(raw.status);
    if (parsed.ok && Array.isArray(parsed.value) && parsed.value.every((status) => isOneOf(TICKET_STATUSES, status))) {
      if (parsed.value.length > 0) query.statuses = [...new Set(parsed.value as TicketStatus[])];
    } else {
      issues.push({ path: "/query/status", message: `must be a JSON array of statuses (${TICKET_STATUSES.join(", ")})` });
    }
  }

  for (const [name, side] of [["createdAfter", "after"], ["createdBefore", "before"]] as const) {
    const value = raw[name];
    if (value === undefined) continue;
    const bound = parseTimeBound(value, side);
    if (bound) query[name] = bound;
    else issues.push({ path: `/query/${name}`, message: "must be a date YYYY-MM-DD or an RFC 3339 date-time" });
  }

  if (raw.order !== undefined) {
    if (raw.order === "asc" || raw.order === "desc") query.order = raw.order;
    else issues.push({ path: "/query/order", message: "must be asc or desc" });
  }

  if (raw.limit !== undefined) {
    if (Number.isInteger(raw.limit) && raw.limit >= 1 && raw.limit <= MAX_LIMIT) query.limit = raw.limit;
    else issues.push({ path: "/query/limit", message: `must be an integer from 1 to ${MAX_LIMIT}` });
  }

  // The cursor is checked against the order actually requested.
  if (raw.cursor !== undefined && !issues.some((issue) => issue.path === "/query/order")) {
    const decoded = decodeCursor(context.cursorSecret, context.companyId, query.order, raw.cursor, context.sort);
    if (decoded.ok) query.cursor = decoded.key;
    else issues.push({ path: "/query/cursor", message: decoded.reason });
  }

  if (issues.length > 0) throw validationError(issues);
  return query;
}
