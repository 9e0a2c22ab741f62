import { describe, expect, it } from "vitest";
import { addWorking, calendarIssues, workingMs, type SlaCalendar } from "./calendar.ts";
import { computeClocks, policyFor, type SlaHistoryEntry, type SlaPolicy } from "./sla.ts";

// Berlin office: Monday to Friday 09:00-17:00, 2026-12-25 a holiday. 2026-12-21 is a Monday (CET, UTC+1).
const berlin: SlaCalendar = { timeZone: "Europe/Berlin", hours: [1, 2, 3, 4, 5].map((day) => ({ day, start: "09:00", end: "17:00" })), holidays: ["2026-12-25"] };
const utc = (iso: string) => new Date(`${iso}Z`);
const HOUR = 3_600_000;

const policy = (over: Partial<SlaPolicy> = {}): SlaPolicy => ({
  id: "standard", name: "Standard", gameIds: [], tiers: [], tags: [],
  targets: { firstResponseMinutes: 120, nextResponseMinutes: 60, resolutionMinutes: 24 * 60 },
  businessHours: true, pauseWhileWaiting: false, warnBeforeMinutes: 30, ...over,
});

describe("business time", () => {
  it("counts only the weekly hours in the calendar's zone", () => {
    // Friday 16:00 Berlin (15:00 UTC) to Monday 10:00 Berlin (09:00 UTC): one hour Friday, one Monday.
    expect(workingMs(berlin, utc("2026-12-18T15:00:00").getTime(), utc("2026-12-21T09:00:00").getTime())).toBe(2 * HOUR);
    expect(workingMs(null, 0, 5 * HOUR)).toBe(5 * HOUR);
  });

  it("adds working time over nights, weekends and holidays", () => {
    // Thursday 2026-12-24 16:30 Berlin + 2 h: 30 min Thursday, Friday is a holiday, 1.5 h on Monday 28th: 10:30 Berlin.
    expect(new Date(addWorking(berlin, utc("2026-12-24T15:30:00").getTime(), 2 * HOUR)!).toISOString()).toBe("2026-12-28T09:30:00.000Z");
    // Starting before opening: the clock starts at 09:00.
    expect(new Date(addWorking(berlin, utc("2026-12-21T05:00:00").getTime(), HOUR)!).toISOString()).toBe("2026-12-21T09:00:00.000Z");
    expect(addWorking({ ...berlin, hours: [] }, 0, HOUR)).toBeNull();
  });

  it("follows daylight saving time: 09:00 in Berlin is 07:00 UTC in summer", () => {
    expect(new Date(addWorking(berlin, utc("2026-07-06T00:00:00").getTime(), 1)!).toISOString()).toBe("2026-07-06T07:00:00.001Z");
  });

  it("names each problem of a calendar by path", () => {
    const issues = calendarIssues({ timeZone: "Mars/Olympus", hours: [{ day: 8, start: "09:00", end: "17:00" }, { day: 1, start: "10:00", end: "09:00" }, { day: 2, start: "09:00", end: "12:00" }, { day: 2, start: "11:00", end: "13:00" }], holidays: ["2026-02-30", "2026-12-25", "2026-12-25"] }, "/calendar");
    expect(issues.map((i) => i.path)).toEqual(["/calendar/timeZone", "/calendar/hours/0/day", "/calendar/hours/1/end", "/calendar/hours/3", "/calendar/holidays/0", "/calendar/holidays/2"]);
  });
});

describe("policies", () => {
  it("applies the first policy whose conditions all hold; no tier counts as tier 1", () => {
    const settings = { calendar: null, policies: [policy({ id: "vip", tiers: [3], tags: ["payment", "refund"] }), policy({ id: "game", gameIds: ["g1"] }), policy({ id: "tier1", tiers: [1] })] };
    expect(policyFor(settings, { gameId: "g1", tier: 3, tags: ["refund"] })?.id).toBe("vip");
    expect(policyFor(settings, { gameId: "g1", tier: 3, tags: [] })?.id).toBe("game");
    expect(policyFor(settings, { gameId: "g2", tier: null, tags: [] })?.id).toBe("tier1");
    expect(policyFor(settings, { gameId: "g2", tier: 2, tags: [] })).toBeUndefined();
  });
});

describe("clocks", () => {
  const created = utc("2026-12-21T08:00:00"); // Monday 09:00 Berlin
  const msg = (type: "PLAYER_MESSAGE" | "AGENT_MESSAGE", id: string, iso: string): SlaHistoryEntry => ({ type, id, at: utc(iso) });
  const status = (from: string, to: string, iso: string): SlaHistoryEntry => ({ type: "STATUS_CHANGED", id: `${from}-${to}`, at: utc(iso), from: from as never, to: to as never });

  it("first response runs in business hours, warns before and breaches at the target", () => {
    const history = { createdAt: created, status: "new" as const, entries: [msg("PLAYER_MESSAGE", "p1", "2026-12-21T08:00:00")] };
    const [first] = computeClocks(policy(), berlin, history, utc("2026-12-21T09:00:00"));
    expect(first).toMatchObject({ metric: "first_response", state: "running", elapsedMs: HOUR, dueAt: utc("2026-12-21T10:00:00"), warnAt: utc("2026-12-21T09:30:00") });
    const [late] = computeClocks(policy(), berlin, history, utc("2026-12-22T09:00:00"));
    expect(late).toMatchObject({ state: "breached", dueAt: utc("2026-12-21T10:00:00") });
  });

  it("stops at the first agent message, and a next response starts with the player's answer", () => {
    const history = { createdAt: created, status: "assigned" as const, entries: [msg("PLAYER_MESSAGE", "p1", "2026-12-21T08:00:00"), msg("AGENT_MESSAGE", "a1", "2026-12-21T09:00:00"), msg("PLAYER_MESSAGE", "p2", "2026-12-21T15:30:00")] };
    const clocks = computeClocks(policy(), berlin, history, utc("2026-12-21T15:45:00"));
    expect(clocks.map((c) => [c.metric, c.cycle, c.state])).toEqual([["first_response", "ticket", "met"], ["next_response", "p2", "running"], ["resolution", "ticket", "running"]]);
    // 16:30 Berlin + 1 working hour: 30 minutes today, 30 tomorrow from 09:00.
    expect(clocks[1]!.dueAt).toEqual(utc("2026-12-22T08:30:00"));
  });

  it("pauses on hold always and while waiting only when the policy says so", () => {
    const entries = [msg("PLAYER_MESSAGE", "p1", "2026-12-21T08:00:00"), status("new", "on_hold", "2026-12-21T08:30:00"), status("on_hold", "waiting", "2026-12-21T09:30:00"), status("waiting", "assigned", "2026-12-21T10:30:00")];
    const history = { createdAt: created, status: "assigned" as const, entries };
    const at = utc("2026-12-21T11:00:00");
    // Counted: 08:00-08:30, waiting 09:30-10:30 (counted without pauseWhileWaiting), 10:30-11:00.
    expect(computeClocks(policy(), berlin, history, at)[0]!.elapsedMs).toBe(2 * HOUR);
    expect(computeClocks(policy({ pauseWhileWaiting: true }), berlin, history, at)[0]!.elapsedMs).toBe(HOUR);
    const paused = computeClocks(policy(), berlin, { ...history, status: "on_hold", entries: entries.slice(0, 2) }, at)[0]!;
    expect(paused).toMatchObject({ state: "paused", dueAt: null, elapsedMs: HOUR / 2 });
  });

  it("counts around the clock without business hours, and a close stops every clock", () => {
    const history = { createdAt: created, status: "closed" as const, entries: [msg("PLAYER_MESSAGE", "p1", "2026-12-21T08:00:00"), status("new", "closed", "2026-12-21T20:00:00")] };
    const clocks = computeClocks(policy({ businessHours: false }), berlin, history, utc("2026-12-23T00:00:00"));
    expect(clocks.map((c) => [c.metric, c.state, c.elapsedMs])).toEqual([["first_response", "breached", 12 * HOUR], ["resolution", "met", 12 * HOUR]]);
  });
});
