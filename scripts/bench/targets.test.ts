// The targets of the production-like run, from made-up measurements.
import { describe, expect, it } from "vitest";
import type { OpenLoopResult } from "./open-loop.ts";
import { evaluateTargets, type CaseResult, type Kind } from "./targets.ts";

const open = (p99: number, errors = 0): OpenLoopResult => ({ rate: 1, achievedRate: 1, sent: 1, answered: 1, p50: 1, p90: 1, p95: p99, p99, max: p99, errors, non2xx: 0, sendLagP99: 0, clientLimited: false });
const result = (name: string, kind: Kind, rps: number, p99 = 10, errors = 0): CaseResult => ({
  name,
  kind,
  saturating: { name, connections: 32, requestsPerSecond: rps, p50: 1, p99: 1, mean: 1, errors: 0, non2xx: 0 },
  ratioToBare: rps / 10_000,
  openLoop: open(p99, errors),
  cpuMicrosPerRequest: {},
});

describe("evaluateTargets", () => {
  const bare = result("bare Koa hello", "baseline", 10_000, 500);
  const met = (targets: ReturnType<typeof evaluateTargets>, prefix: string) => targets.filter((t) => t.target.startsWith(prefix)).map((t) => t.met);

  it("judges each ratio against bare Koa of the same run", () => {
    const targets = evaluateTargets(
      [bare, result("POST /tickets", "create", 250), result("actions", "actions", 299), result("GET /games", "reference", 5000), result("GET /tickets?limit=100", "list", 150)],
      14_999,
    );
    expect(met(targets, "POST /tickets: throughput")).toEqual([true]);
    expect(met(targets, "actions: throughput")).toEqual([false]);
    expect(met(targets, "GET /games: throughput")).toEqual([true]);
    // 150 pages of 100 = 15,000 tickets/s = 1.5x.
    expect(met(targets, "GET /tickets?limit=100: tickets/s")).toEqual([true]);
    expect(targets.find((t) => t.target.startsWith("GET /tickets?limit=100: tickets/s"))!.value).toBe(1.5);
    expect(met(targets, "cursor scan")).toEqual([false]);
  });

  it("needs p99 within 50 ms and no errors at half rate for every endpoint, not for the baseline", () => {
    const targets = evaluateTargets([bare, result("a", "player", 100, 50), result("b", "session", 100, 51), result("c", "list", 100, 5, 1)], 0);
    expect(met(targets, "a: p99")).toEqual([true]);
    expect(met(targets, "b: p99")).toEqual([false]);
    expect(met(targets, "c: p99")).toEqual([false]);
    expect(targets.some((t) => t.target.startsWith("bare Koa hello"))).toBe(false);
  });

  it("says when the load generator, not the server, fell behind", () => {
    const late = result("d", "player", 100, 80);
    late.openLoop = { ...late.openLoop, sendLagP99: 40, clientLimited: true };
    const [target] = evaluateTargets([bare, late], 0).filter((t) => t.target.startsWith("d: p99"));
    expect(target).toMatchObject({ met: false, note: "client-limited: the generator sent up to 40 ms late" });
  });
});
