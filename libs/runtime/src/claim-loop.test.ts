import { createLogger } from "@support/logging";
import { describe, expect, it } from "vitest";
import { createClaimLoop } from "./claim-loop.ts";

const logger = createLogger({ service: "claim-loop-test", level: "silent" });
const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the claim loop", () => {
  it("runs what it claims with at most `concurrency` in flight, claims again as slots free up, and waits for them at stop", async () => {
    const queue = Array.from({ length: 10 }, (_, i) => i);
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const order: string[] = [];
    const loop = createClaimLoop<number>({
      name: "test",
      logger,
      concurrency: 3,
      pollIntervalMs: 10_000,
      claim: async (free) => queue.splice(0, free),
      async run(item) {
        running++;
        most = Math.max(most, running);
        await tick(10);
        running--;
        done.push(item);
      },
      runFailed: () => undefined,
      beforeDrain: () => order.push("drain"),
    });
    loop.start();
    for (let i = 0; i < 100 && done.length < 10; i++) await tick(10);
    expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    queue.push(10);
    loop.wake();
    await loop.stop();
    order.push("stopped");
    expect(order).toEqual(["drain", "stopped"]);
    expect(loop.isStopped()).toBe(true);
  });

  it("keeps running after a failed claim (the database away) and hands a failed item to runFailed", async () => {
    let claims = 0;
    const failed: number[] = [];
    const loop = createClaimLoop<number>({
      name: "test",
      logger,
      concurrency: 2,
      pollIntervalMs: 10,
      async claim() {
        claims++;
        if (claims === 1) throw new Error("connection refused");
        return claims === 3 ? [7] : [];
      },
      async run(item) {
        throw new Error(`bad ${item}`);
      },
      runFailed: (_error, item) => failed.push(item),
    });
    loop.start();
    for (let i = 0; i < 300 && failed.length === 0; i++) await tick(10);
    await loop.stop();
    expect(failed).toEqual([7]);
    expect(claims).toBeGreaterThanOrEqual(3);
  });
});
