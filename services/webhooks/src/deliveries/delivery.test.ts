import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor, nextAttemptAt, parseRetryAfter, parseRetrySchedule } from "./delivery.ts";

const now = new Date("2026-11-28T12:00:00Z");

describe("retry schedule", () => {
  it("follows the schedule, then gives up", () => {
    const schedule = parseRetrySchedule("5, 300,1800");
    expect(schedule).toEqual([5, 300, 1800]);
    expect(nextAttemptAt(1, { status: 500 }, schedule, 3600, now)).toEqual(new Date(now.getTime() + 5000));
    expect(nextAttemptAt(3, { error: "timeout after 10 s" }, schedule, 3600, now)).toEqual(new Date(now.getTime() + 1_800_000));
    expect(nextAttemptAt(4, { status: 500 }, schedule, 3600, now)).toBeNull();
    expect(() => parseRetrySchedule("1,,2")).toThrow();
    expect(() => parseRetrySchedule("-1")).toThrow();
  });

  it("honours Retry-After up to its cap", () => {
    expect(nextAttemptAt(1, { status: 429, retryAfterSeconds: 120 }, [5], 3600, now)).toEqual(new Date(now.getTime() + 120_000));
    expect(nextAttemptAt(1, { status: 503, retryAfterSeconds: 999_999 }, [5], 3600, now)).toEqual(new Date(now.getTime() + 3_600_000));
    expect(parseRetryAfter("30", now)).toBe(30);
    expect(parseRetryAfter("Sat, 28 Nov 2026 12:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("round-trips list cursors and refuses others", () => {
    expect(decodeCursor(encodeCursor("42"))).toBe("42");
    expect(decodeCursor("bogus")).toBeUndefined();
  });
});
