import { isAppError } from "@support/errors";
import { describe, expect, it } from "vitest";
import { AGENT_VIEWS, OPEN_STATUSES, parseAgentListQuery, viewConditions } from "./agent-list.ts";
import { encodeCursor } from "./cursor.ts";

const COMPANY = "c0000000-0000-4000-8000-000000000001";
const USER = "11111111-1111-4111-8111-111111111111";
const GAME = "a0000000-0000-4000-8000-000000000001";
const NOW = new Date("2026-03-08T12:00:00.000Z");
const context = { companyId: COMPANY, userId: USER, gameIds: [GAME], cursorSecret: "secret", now: NOW };

function pathsOf(run: () => unknown): string[] | undefined {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return error.details?.issues?.map((issue) => issue.path);
    throw error;
  }
  return undefined;
}

describe("the built-in views", () => {
  it("define mine, unassigned and all open over every status but closed", () => {
    expect(OPEN_STATUSES).toEqual(["new", "assigned", "unassigned", "waiting", "on_hold"]);
    expect(viewConditions("mine", USER, NOW)).toEqual({ statuses: OPEN_STATUSES, assignee: { type: "user", id: USER } });
    expect(viewConditions("unassigned", USER, NOW)).toEqual({ statuses: OPEN_STATUSES, assignee: { type: "nobody" } });
    expect(viewConditions("open", USER, NOW)).toEqual({ statuses: OPEN_STATUSES });
  });

  it("define closed in the last 7 days from now", () => {
    expect(viewConditions("closed_7d", USER, NOW)).toEqual({ statuses: ["closed"], closedSince: new Date("2026-03-01T12:00:00.000Z") });
    expect(AGENT_VIEWS).toEqual(["mine", "unassigned", "open", "waiting", "on_hold", "closed_7d"]);
  });
});

describe("parsing an agent list query", () => {
  it("lists the newest first by creation unless told otherwise, within the user's games", () => {
    expect(parseAgentListQuery({}, context)).toMatchObject({ order: "desc", sort: "createdAt", limit: 100, gameIds: [GAME] });
  });

  it("takes the agents' filters: view, assignee (me, nobody, a user), language, tier, channel, text, sort", () => {
    const query = parseAgentListQuery({ view: "waiting", assignee: "me", language: "de", tier: "2", channel: "chat", q: "  lost ship ", sort: "lastActivityAt" }, context);
    expect(query).toMatchObject({
      view: { statuses: ["waiting"] }, assignee: { type: "user", id: USER }, language: "de", tier: 2, channel: "chat", search: { text: "lost ship", words: "lost ship", substring: "lost ship" }, sort: "lastActivityAt",
    });
    expect(parseAgentListQuery({ assignee: "nobody" }, context).assignee).toEqual({ type: "nobody" });
    const other = "22222222-2222-4222-8222-22222222222A";
    expect(parseAgentListQuery({ assignee: other }, context).assignee).toEqual({ type: "user", id: other.toLowerCase() });
  });

  it("names every bad value, its own and the public list's, in one answer", () => {
    expect(pathsOf(() => parseAgentListQuery({ view: "everything", assignee: "someone", language: "xx", tier: "4", channel: "fax", sort: "name", status: "open", limit: 0 }, context)))
      .toEqual(["/query/sort", "/query/status", "/query/limit", "/query/view", "/query/assignee", "/query/language", "/query/tier", "/query/channel"]);
    expect(pathsOf(() => parseAgentListQuery({ q: "x".repeat(201) }, context))).toEqual(["/query/q"]);
  });

  it("binds the cursor to the sort: a cursor of the other sort is refused", () => {
    const key = { createdAt: NOW, runningId: 7 };
    const byActivity = encodeCursor("secret", COMPANY, "desc", key, "lastActivityAt");
    expect(parseAgentListQuery({ cursor: byActivity, sort: "lastActivityAt" }, context).cursor).toEqual(key);
    expect(pathsOf(() => parseAgentListQuery({ cursor: byActivity }, context))).toEqual(["/query/cursor"]);
    const byCreation = encodeCursor("secret", COMPANY, "desc", key);
    expect(pathsOf(() => parseAgentListQuery({ cursor: byCreation, sort: "lastActivityAt" }, context))).toEqual(["/query/cursor"]);
  });
});
