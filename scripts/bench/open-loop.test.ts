// The open-loop scheduler's arithmetic (due times, how many are due, percentiles); no timing.
import { describe, expect, it } from "vitest";
import { dueAt, dueBy, percentile, totalRequests } from "./open-loop.ts";

describe("open-loop schedule", () => {
  it("spaces requests evenly at the rate, the first at 0", () => {
    expect(dueAt(0, 200)).toBe(0);
    expect(dueAt(1, 200)).toBe(5);
    expect(dueAt(200, 200)).toBe(1000);
    expect(dueAt(3, 0.5)).toBe(6000);
  });

  it("counts the requests due by a time, including one due exactly then", () => {
    expect(dueBy(-1, 100, 1000)).toBe(0);
    expect(dueBy(0, 100, 1000)).toBe(1);
    expect(dueBy(9.99, 100, 1000)).toBe(1);
    expect(dueBy(10, 100, 1000)).toBe(2);
    expect(dueBy(999, 100, 1000)).toBe(100);
    // A rate whose interval is not a whole number of ms: 3 per second, due at 0, 333.3, 666.7, 1000.
    expect(dueBy(333, 3, 100)).toBe(1);
    expect(dueBy(334, 3, 100)).toBe(2);
    expect(dueBy(1000, 3, 100)).toBe(4);
  });

  it("never counts more than the run's total, however late the generator is", () => {
    expect(dueBy(60_000, 100, 500)).toBe(500);
  });

  it("agrees with dueAt: request i is due by dueAt(i) and not before", () => {
    for (const rate of [1, 7, 333, 8133]) {
      for (const i of [0, 1, 2, 99, 1234]) {
        expect(dueBy(dueAt(i, rate), rate, Infinity)).toBe(i + 1);
        if (i > 0) expect(dueBy(dueAt(i, rate) - 0.01, rate, Infinity)).toBe(i);
      }
    }
  });

  it("sends rate x duration requests in a run, at least one", () => {
    expect(totalRequests(8133, 10)).toBe(81_330);
    expect(totalRequests(12.5, 3)).toBe(37);
    expect(totalRequests(0.1, 1)).toBe(1);
  });
});

describe("percentile", () => {
  it("is the nearest rank of sorted values", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 90)).toBe(90);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile(Float64Array.from([0.5, 1.5, 40, 41]), 99)).toBe(41);
  });

  it("is NaN without values", () => {
    expect(percentile([], 50)).toBeNaN();
  });
});
