// Pooling rounds of a closed loop (combineLoops): the arithmetic only, no HTTP.
import { describe, expect, it } from "vitest";
import { combineLoops, type LoopResult } from "./closed-loop.ts";

function loop(seconds: number, accepted: number[], refused: number[], statuses: Record<string, number>, errors = 0): LoopResult {
  return {
    name: "POST /tickets",
    connections: 32,
    seconds,
    statuses,
    goodput: accepted.length / seconds,
    accepted: { p50: NaN, p99: NaN },
    refused: { count: refused.length, p50: NaN, p99: NaN, max: NaN },
    errors,
    windowMonotonicUs: [seconds, seconds * 2],
    latencies: { accepted: [...accepted].sort((a, b) => a - b), refused: [...refused].sort((a, b) => a - b) },
  };
}

describe("combineLoops", () => {
  it("pools the rounds' answers: percentiles over every latency, 2xx a second over the rounds' whole time", () => {
    const fast = loop(10, Array.from({ length: 99 }, (_, i) => i + 1), [2, 4], { "200": 99, "503": 2 });
    const slow = loop(10, Array.from({ length: 101 }, (_, i) => 1000 + i), [], { "200": 101 }, 1);
    const combined = combineLoops([fast, slow]);
    expect(combined.seconds).toBe(20);
    expect(combined.goodput).toBe(10);
    expect(combined.statuses).toEqual({ "200": 200, "503": 2 });
    expect(combined.errors).toBe(1);
    // 200 answers: the 100th is the last of the fast round's 99 or the first of the slow one's.
    expect(combined.accepted.p50).toBe(1000);
    expect(combined.accepted.p99).toBe(1098);
    expect(combined.refused).toEqual({ count: 2, p50: 2, p99: 4, max: 4 });
    expect(combined.windowMonotonicUs).toEqual(fast.windowMonotonicUs);
  });

  it("keeps one round as it is, and refuses none", () => {
    const one = loop(5, [3, 1, 2], [], { "200": 3 });
    expect(combineLoops([one]).accepted).toEqual({ p50: 2, p99: 3 });
    expect(() => combineLoops([])).toThrow("no round");
  });
});
