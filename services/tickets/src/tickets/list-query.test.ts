import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import { encodeCursor } from "./cursor.ts";
import { parseListQuery, parseTimeBound, type RawListQuery } from "./list-query.ts";

const context = { companyId: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", cursorSecret: "s" };

function issuesOf(raw: RawListQuery): { path: string; message: string }[] {
  try {
    parseListQuery(raw, context);
  } catch (error) {
    if (isAppError(error) && error.details?.type === "VALIDATION_ERROR") return error.details.issues ?? [];
    throw error;
  }
  return [];
}

describe("list query", () => {
  it("defaults to ascending pages of 100 without filters", () => {
    expect(parseListQuery({}, context)).toEqual({ order: "asc", limit: 100 });
  });

  it("parses every filter", () => {
    const cursorKey = { createdAt: new Date("2026-01-01T00:00:00.000Z"), runningId: 9 };
    const query = parseListQuery(
      {
        playerId: "p-1",
        email: "A@B.example",
        gameId: "CCCCCCCC-CCCC-4CCC-8CCC-CCCCCCCCCCCC",
        ticketId: "dddddddd-dddd-4ddd-8ddd-dddddddddddd",
        tags: '["bug","vip","bug"]',
        fields: '{"level":3,"ship":["fighter"],"ok":true}',
        status: '["new","waiting"]',
        createdAfter: "2026-01-01",
        createdBefore: "2026-01-31T12:00:00+02:00",
        order: "desc",
        cursor: encodeCursor("s", context.companyId, "desc", cursorKey),
        limit: 1000,
      },
      context,
    );
    expect(query).toEqual({
      playerId: "p-1",
      email: "A@B.example",
      gameId: "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
      ticketId: "dddddddd-dddd-4ddd-8ddd-dddddddddddd",
      tags: ["bug", "vip"],
      fields: { level: 3, ship: ["fighter"], ok: true },
      statuses: ["new", "waiting"],
      createdAfter: { at: new Date("2026-01-01T00:00:00.000Z"), exclusive: false },
      createdBefore: { at: new Date("2026-01-31T10:00:00.000Z"), exclusive: false },
      order: "desc",
      cursor: cursorKey,
      limit: 1000,
    });
  });

  it("includes the whole day of a date-only createdBefore", () => {
    expect(parseTimeBound("2026-02-28", "before")).toEqual({ at: new Date("2026-03-01T00:00:00.000Z"), exclusive: true });
    expect(parseTimeBound("2026-02-28", "after")).toEqual({ at: new Date("2026-02-28T00:00:00.000Z"), exclusive: false });
    expect(parseTimeBound("2026-02-28T23:59:59.999Z", "before")).toEqual({ at: new Date("2026-02-28T23:59:59.999Z"), exclusive: false });
    expect(parseTimeBound("2026-02-30", "before")).toBeUndefined();
    expect(parseTimeBound("yesterday", "after")).toBeUndefined();
  });

  it("treats empty tag and status lists as no filter", () => {
    expect(parseListQuery({ tags: "[]", status: "[]", fields: "{}" }, context)).toEqual({ order: "asc", limit: 100 });
  });

  it.each([
    [{ tags: "bug" }, "/query/tags"],
    [{ tags: '"bug"' }, "/query/tags"],
    [{ tags: "[1]" }, "/query/tags"],
    [{ fields: "[]" }, "/query/fields"],
    [{ fields: "{nope" }, "/query/fields"],
    [{ fields: '{"a":{"b":1}}' }, "/query/fields/a"],
    [{ status: '["open"]' }, "/query/status"],
    [{ status: '"new"' }, "/query/status"],
    [{ createdAfter: "01/02/2026" }, "/query/createdAfter"],
    [{ createdBefore: "2026-13-01" }, "/query/createdBefore"],
    [{ gameId: "galaxy" }, "/query/gameId"],
    [{ ticketId: "42" }, "/query/ticketId"],
    [{ order: "newest" }, "/query/order"],
    [{ limit: 0 }, "/query/limit"],
    [{ limit: 1001 }, "/query/limit"],
    [{ limit: 2.5 }, "/query/limit"],
    [{ cursor: "garbage" }, "/query/cursor"],
  ] as [RawListQuery, string][])("refuses %j naming %s", (raw, path) => {
    expect(issuesOf(raw).map((issue) => issue.path)).toEqual([path]);
  });

  it("refuses a cursor of the other order or another company", () => {
    const key = { createdAt: new Date("2026-01-01T00:00:00.000Z"), runningId: 1 };
    expect(issuesOf({ cursor: encodeCursor("s", context.companyId, "desc", key) })).toEqual([
      { path: "/query/cursor", message: expect.stringContaining("order=desc") },
    ]);
    expect(issuesOf({ cursor: encodeCursor("s", "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "asc", key) }).map((i) => i.path)).toEqual(["/query/cursor"]);
  });

  it("refuses JSON filters carrying U+0000, which Postgres cannot compare", () => {
    expect(issuesOf({ tags: '["a\\u0000"]', fields: '{"k\\u0000":1}', status: '["new"]' }).map((issue) => issue.path)).toEqual(["/query/tags", "/query/fields"]);
  });

  it("names every bad value at once", () => {
    expect(issuesOf({ tags: "x", status: "y", limit: -1 }).map((issue) => issue.path)).toEqual(["/query/tags", "/query/status", "/query/limit"]);
  });
});
