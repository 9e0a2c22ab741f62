import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { createPeriodicJob } from "./periodic-job.ts";

function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ service: "job-test", destination: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });
  return { lines, logger };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("periodic job", () => {
  it("runs repeatedly, never overlapping, and keeps going after failures, logged once per outage", async () => {
    const { lines, logger } = capturingLogger();
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const job = createPeriodicJob({
      name: "test sweep", intervalMs: 5, logger,
      run: async () => {
        runs += 1;
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(15);
        active -= 1;
        if (runs <= 2) throw new Error("the first two runs fail");
      },
    });
    job.start();
    job.start(); // a second start does not schedule twice
    await expect.poll(() => runs, { timeout: 2000 }).toBeGreaterThanOrEqual(4);
    await job.stop();
    expect(maxActive).toBe(1);
    const warnings = lines.filter((line) => line.includes("test sweep failed; retrying with backoff"));
    expect(warnings).toHaveLength(1);
    expect(lines.filter((line) => line.includes("test sweep recovered"))).toHaveLength(1);
  });

  it("waits for a run in progress on stop and runs no more afterwards", async () => {
    const { logger } = capturingLogger();
    let finished = 0;
    let started = 0;
    const job = createPeriodicJob({ name: "slow", intervalMs: 1, logger, run: async () => { started += 1; await sleep(30); finished += 1; } });
    job.start();
    await expect.poll(() => started, { timeout: 2000 }).toBeGreaterThanOrEqual(1);
    await job.stop();
    const startedBeforeStop = started;
    expect(finished).toBe(startedBeforeStop);
    await sleep(20);
    expect(started).toBe(startedBeforeStop);
  });

  it("does nothing when disabled", async () => {
    const { logger } = capturingLogger();
    let runs = 0;
    const job = createPeriodicJob({ name: "off", intervalMs: 0, logger, run: async () => void (runs += 1) });
    job.start();
    await sleep(20);
    await job.stop();
    expect(runs).toBe(0);
  });
});
