// Every (state, trigger) pair of the state machine against a table written from the rules:
// who moves where, what a closed ticket refuses, and when a waiting ticket auto-closes.
import { describe, expect, it } from "vitest";
import type { TicketStatus } from "./ticket.ts";
import { isDueForAutoClose, transition, type StateTrigger, type TicketState } from "./ticket-state.ts";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const EARLIER = new Date("2026-01-01T00:00:00Z");
const NOW = new Date("2026-01-02T00:00:00Z");

function state(status: TicketStatus, assigneeId: string | null): TicketState {
  return {
    status,
    assigneeId,
    resolutionType: status === "closed" ? "resolved" : null,
    waitingSince: status === "waiting" ? EARLIER : null,
  };
}

// Columns: the start states. "+A" has assignee A.
const STATES = {
  "new": state("new", null),
  "assigned+A": state("assigned", A),
  "unassigned": state("unassigned", null),
  "waiting": state("waiting", null),
  "waiting+A": state("waiting", A),
  "on_hold": state("on_hold", null),
  "on_hold+A": state("on_hold", A),
  "closed": state("closed", null),
  "closed+A": state("closed", A),
} as const;
type StartState = keyof typeof STATES;

const TRIGGERS: Record<string, StateTrigger> = {
  "setStatus waiting": { type: "setStatus", status: "waiting" },
  "setStatus assigned": { type: "setStatus", status: "assigned" },
  "setOnHold true": { type: "setOnHold", onHold: true },
  "setOnHold false": { type: "setOnHold", onHold: false },
  "sendMessage": { type: "sendMessage" },
  "resolveTicket": { type: "resolveTicket" },
  "rejectTicket": { type: "rejectTicket" },
  "assignTicket B": { type: "assignTicket", assigneeId: B },
  "unassignTicket": { type: "unassignTicket" },
  "addTags": { type: "addTags" },
  "removeTags": { type: "removeTags" },
  "setFields": { type: "setFields" },
  "addPrivateNote": { type: "addPrivateNote" },
  "setPlayerInfo": { type: "setPlayerInfo" },
  "playerMessage": { type: "playerMessage" },
  "autoClose": { type: "autoClose" },
  "merge": { type: "merge" },
};

// Cell: resulting status (":resolution" when it changes), "409" (refused on a closed
// ticket), "-" (autoClose does not apply). Column order as in STATES.
const COLUMNS = Object.keys(STATES) as StartState[];
const TABLE: Record<string, string[]> = {
  //                       new           assigned+A   unassigned    waiting       waiting+A     on_hold       on_hold+A     closed        closed+A
  "setStatus waiting":   ["waiting",    "waiting",    "waiting",    "waiting",    "waiting",    "waiting",    "waiting",    "409",        "409"],
  "setStatus assigned":  ["unassigned", "assigned",   "unassigned", "unassigned", "assigned",   "unassigned", "assigned",   "409",        "409"],
  "setOnHold true":      ["on_hold",    "on_hold",    "on_hold",    "on_hold",    "on_hold",    "on_hold",    "on_hold",    "409",        "409"],
  "setOnHold false":     ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "unassigned", "assigned",   "409",        "409"],
  "sendMessage":         ["unassigned", "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "409",        "409"],
  "resolveTicket":       ["closed:resolved", "closed:resolved", "closed:resolved", "closed:resolved", "closed:resolved", "closed:resolved", "closed:resolved", "409", "409"],
  "rejectTicket":        ["closed:rejected", "closed:rejected", "closed:rejected", "closed:rejected", "closed:rejected", "closed:rejected", "closed:rejected", "409", "409"],
  "assignTicket B":      ["assigned",   "assigned",   "assigned",   "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "unassignTicket":      ["new",        "unassigned", "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "addTags":             ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "removeTags":          ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "setFields":           ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "addPrivateNote":      ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "setPlayerInfo":       ["new",        "assigned",   "unassigned", "waiting",    "waiting",    "on_hold",    "on_hold",    "closed",     "closed"],
  "playerMessage":       ["new",        "assigned",   "unassigned", "unassigned", "assigned",   "on_hold",    "on_hold",    "closed",     "closed"],
  "autoClose":           ["-",          "-",          "-",          "closed:auto_closed", "closed:auto_closed", "-", "-",   "-",          "-"],
  "merge":               ["closed:merged", "closed:merged", "closed:merged", "closed:merged", "closed:merged", "closed:merged", "closed:merged", "409", "409"],
};

const cases = Object.entries(TABLE).flatMap(([trigger, cells]) =>
  cells.map((expected, column) => ({ trigger, start: COLUMNS[column]!, expected })),
);

describe("ticket state machine", () => {
  it("has a cell for every trigger and every start state", () => {
    expect(Object.keys(TABLE).sort()).toEqual(Object.keys(TRIGGERS).sort());
    for (const cells of Object.values(TABLE)) expect(cells).toHaveLength(COLUMNS.length);
  });

  it.each(cases)("$trigger on $start gives $expected", ({ trigger, start, expected }) => {
    const before = STATES[start];
    const action = TRIGGERS[trigger]!;
    const result = transition(before, action, NOW);
    if (expected === "409") {
      expect(result).toEqual({ ok: false, reason: "closed" });
      return;
    }
    if (expected === "-") {
      expect(result).toEqual({ ok: false, reason: "not_waiting" });
      return;
    }
    if (!result.ok) throw new Error(`refused: ${result.reason}`);
    const [status, resolution] = expected.split(":");
    expect(result.state.status).toBe(status);
    expect(result.state.resolutionType).toBe(resolution ?? before.resolutionType);
    // The assignee: set by assignTicket, removed by unassignTicket, kept otherwise.
    const assignee = action.type === "assignTicket" ? B : action.type === "unassignTicket" ? null : before.assigneeId;
    expect(result.state.assigneeId).toBe(assignee);
    // The waiting clock: kept while waiting, started on entering, cleared on leaving.
    const waitingSince = status !== "waiting" ? null : before.status === "waiting" ? EARLIER : NOW;
    expect(result.state.waitingSince).toEqual(waitingSince);
  });

  it("does not change the state it is given", () => {
    const before = STATES["waiting+A"];
    const copy = structuredClone(before);
    transition(before, { type: "resolveTicket" }, NOW);
    expect(before).toEqual(copy);
  });
});

describe("auto-close due", () => {
  const waiting = { status: "waiting" as const, waitingSince: new Date("2026-01-01T00:00:00Z"), lastPlayerMessageAt: null };

  it("is due once the company's hours have passed since entering waiting", () => {
    expect(isDueForAutoClose(waiting, 24, new Date("2026-01-01T23:59:59Z"))).toBe(false);
    expect(isDueForAutoClose(waiting, 24, new Date("2026-01-02T00:00:00Z"))).toBe(true);
    expect(isDueForAutoClose(waiting, 0.5, new Date("2026-01-01T00:30:00Z"))).toBe(true);
  });

  it("counts from a later player message", () => {
    const answered = { ...waiting, lastPlayerMessageAt: new Date("2026-01-01T12:00:00Z") };
    expect(isDueForAutoClose(answered, 24, new Date("2026-01-02T06:00:00Z"))).toBe(false);
    expect(isDueForAutoClose(answered, 24, new Date("2026-01-02T12:00:00Z"))).toBe(true);
  });

  it("never applies to a ticket that is not waiting", () => {
    expect(isDueForAutoClose({ ...waiting, status: "assigned" }, 1, new Date("2030-01-01T00:00:00Z"))).toBe(false);
  });
});
