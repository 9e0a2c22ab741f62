// The targets of the production-like run (production.ts), each a ratio to bare Koa hello's
// req/s measured in the same run with the same harness and connections, so that the verdict
// means the same on a fast or a slow machine:
//  - POST /tickets >= 0.025x; ticket actions (sendMessage + setStatus per request) >= 0.03x;
//  - GET /tickets?limit=100: tickets per second >= 1.5x bare Koa's req/s; the cursor scan too;
//  - reference reads >= 0.5x (with production logging on);
//  - every endpoint: p99 <= 50 ms at a fixed arrival rate of half its saturating rate, no errors.
import type { Row } from "./measure.ts";
import type { OpenLoopResult } from "./open-loop.ts";
import type { ProcessStalls } from "./stalls.ts";

export const P99_LIMIT_MS = 50;

export type Kind = "baseline" | "reference" | "create" | "actions" | "list" | "player" | "session";

export interface CaseResult {
  name: string;
  kind: Kind;
  saturating: Row;
  ratioToBare: number;
  openLoop: OpenLoopResult;
  /** Each stack process's event-loop delay and GC time during the open loop (stalls.ts). */
  openLoopStalls?: Record<string, ProcessStalls>;
  /** CPU µs per answer by process over the open loop (warm-up included). */
  openLoopCpuMicrosPerRequest?: Record<string, number>;
  /** CPU µs per request by process (closed-loop run). */
  cpuMicrosPerRequest: Record<string, number>;
}

export interface Target {
  target: string;
  value: number;
  required: string;
  met: boolean;
  /** Why the value may not be the server's (e.g. the load generator fell behind). */
  note?: string;
}

const round2 = (x: number) => Math.round(x * 1000) / 1000;

/** The targets of the issue, each against bare Koa's req/s of the same run. */
export function evaluateTargets(results: CaseResult[], scanTicketsPerSecond?: number): Target[] {
  const bare = results.find((r) => r.kind === "baseline")?.saturating.requestsPerSecond ?? NaN;
  const targets: Target[] = [];
  const of = (kind: Kind) => results.filter((r) => r.kind === kind);
  for (const r of of("create")) targets.push({ target: `${r.name}: throughput`, value: round2(r.ratioToBare), required: ">= 0.025x bare Koa", met: r.ratioToBare >= 0.025 });
  for (const r of of("actions")) targets.push({ target: `${r.name}: throughput`, value: round2(r.ratioToBare), required: ">= 0.03x bare Koa", met: r.ratioToBare >= 0.03 });
  for (const r of of("list")) {
    const perSecond = r.saturating.requestsPerSecond * 100;
    targets.push({ target: `${r.name}: tickets/s`, value: round2(perSecond / bare), required: ">= 1.5x bare Koa req/s", met: perSecond >= 1.5 * bare });
  }
  if (scanTicketsPerSecond !== undefined) targets.push({ target: "cursor scan (limit=1000, one client): tickets/s", value: round2(scanTicketsPerSecond / bare), required: ">= 1.5x bare Koa req/s", met: scanTicketsPerSecond >= 1.5 * bare });
  for (const r of of("reference")) targets.push({ target: `${r.name}: throughput`, value: round2(r.ratioToBare), required: ">= 0.5x bare Koa", met: r.ratioToBare >= 0.5 });
  for (const r of results.filter((x) => x.kind !== "baseline")) {
    const clean = r.openLoop.errors === 0 && r.openLoop.non2xx === 0;
    targets.push({
      target: `${r.name}: p99 at half its saturating rate (${r.openLoop.rate}/s)`,
      value: r.openLoop.p99,
      required: `<= ${P99_LIMIT_MS} ms, no errors`,
      met: r.openLoop.p99 <= P99_LIMIT_MS && clean,
      ...(r.openLoop.clientLimited ? { note: `client-limited: the generator sent up to ${r.openLoop.sendLagP99} ms late` } : {}),
    });
  }
  return targets;
}
