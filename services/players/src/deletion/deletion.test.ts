import { describe, expect, it } from "vitest";
import { deletionSettingsProblems, dueAt, erasureCounts, holdMs, MAX_HOLD_MS, pendingSteps, stepDone } from "./deletion.ts";

const now = new Date("2026-11-25T10:00:00.000Z");

describe("holding a scheduled deletion back", () => {
  it("is due the configured delay after scheduling", () => {
    expect(dueAt(now, 86_400).toISOString()).toBe("2026-11-26T10:00:00.000Z");
  });

  it("holds until the due time, at most an hour at a time", () => {
    expect(holdMs(new Date(now.getTime() + 2_500), now)).toBe(2_500);
    expect(holdMs(dueAt(now, 86_400), now)).toBe(MAX_HOLD_MS);
    expect(holdMs(new Date(now.getTime() + MAX_HOLD_MS + 1), now)).toBe(MAX_HOLD_MS);
  });

  it("does not hold a due or overdue schedule", () => {
    expect(holdMs(now, now)).toBe(0);
    expect(holdMs(new Date(now.getTime() - 60_000), now)).toBe(0);
  });
});

describe("the steps of an erasure", () => {
  it("runs tickets, media, then the player record, skipping what is done", () => {
    expect(pendingSteps({})).toEqual(["tickets", "media", "players"]);
    expect(pendingSteps({ tickets: stepDone({ tickets: 2 }, now) })).toEqual(["media", "players"]);
    expect(pendingSteps({ media: stepDone({ attachments: 1 }, now) })).toEqual(["tickets", "players"]);
    const all = { tickets: stepDone({ tickets: 1 }, now), media: stepDone({ attachments: 0 }, now), players: stepDone({ players: 1 }, now) };
    expect(pendingSteps(all)).toEqual([]);
  });

  it("reports the counts by service", () => {
    expect(erasureCounts({ tickets: stepDone({ tickets: 2, events: 5 }, now), players: stepDone({ players: 1 }, now) })).toEqual({
      tickets: { tickets: 2, events: 5 },
      players: { players: 1 },
    });
    expect(stepDone({ attachments: 3 }, now)).toEqual({ status: "done", at: now.toISOString(), counts: { attachments: 3 } });
  });
});

describe("deletion settings", () => {
  it("accepts the defaults and short delays for tests", () => {
    expect(deletionSettingsProblems({ delaySeconds: 86_400, maxPending: 100_000 })).toEqual([]);
    expect(deletionSettingsProblems({ delaySeconds: 1, maxPending: 1 })).toEqual([]);
  });

  it("refuses a delay the players stream could not keep, and bad numbers", () => {
    expect(deletionSettingsProblems({ delaySeconds: 7 * 86_400, maxPending: 10 })).toHaveLength(1);
    expect(deletionSettingsProblems({ delaySeconds: 0, maxPending: 10 })).toHaveLength(1);
    expect(deletionSettingsProblems({ delaySeconds: 1.5, maxPending: 10 })).toHaveLength(1);
    expect(deletionSettingsProblems({ delaySeconds: 60, maxPending: 0 })).toHaveLength(1);
  });
});
