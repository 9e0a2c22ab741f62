import { createLogger } from "@support/logging";
import { createMetricsRegistry, startMetricsServer } from "@support/metrics";
import { describe, expect, it } from "vitest";
import { longestStall, stallWindow } from "./stalls.ts";

describe("stall window", () => {
  it("reports the longest event-loop delay of a process inside the window, and its GC time", async () => {
    const registry = createMetricsRegistry();
    const server = await startMetricsServer({ host: "127.0.0.1", port: 0, registry, logger: createLogger({ service: "stalls-test", level: "silent" }) });
    try {
      // A stall before the window does not count: the first scrape starts a new one.
      const block = (ms: number) => {
        const until = performance.now() + ms;
        while (performance.now() < until);
      };
      block(300);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const end = await stallWindow({ probe: server.port, gone: 1 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      block(60);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const stalls = await end();
      expect(Object.keys(stalls)).toEqual(["probe"]); // the port nobody listens on is left out
      // The 60 ms block, less up to one sampling interval (the tick may fall anywhere in it).
      expect(stalls.probe!.lagMaxMs).toBeGreaterThanOrEqual(45);
      expect(stalls.probe!.lagMaxMs).toBeLessThan(250);
      expect(stalls.probe!.gcMs).toBeGreaterThanOrEqual(0);
      expect(longestStall(stalls)).toBe(`${stalls.probe!.lagMaxMs} (probe)`);
      expect(longestStall({})).toBe("");
    } finally {
      await server.stop();
    }
  });
});
