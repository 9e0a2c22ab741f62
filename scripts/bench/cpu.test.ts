// CPU accounting of a run: /proc/<pid>/stat parsing and µs per request between two snapshots.
import { describe, expect, it } from "vitest";
import { addedOver, cpuMicros, cpuPerRequest, idleCorrectedMeter, interleavedRounds, meanPerProcess, parseStatTicks, spreadPerProcess } from "./cpu.ts";

describe("parseStatTicks", () => {
  it("adds utime and stime, counting fields after the command name", () => {
    // Fields 14 and 15 are 1500 and 250; the command name holds a space and a parenthesis.
    const stat = "4242 (node (main) x) S 1 4242 4242 0 -1 4194560 9000 0 12 0 1500 250 0 0 20 0 11 0 555 1000000 20000";
    expect(parseStatTicks(stat)).toBe(1750);
  });

  it("refuses what it cannot read", () => {
    expect(() => parseStatTicks("garbage")).toThrow(/unreadable/);
  });

  it("reads this process's own CPU time, and nothing for a pid that does not exist", () => {
    expect(cpuMicros(process.pid)).toBeGreaterThanOrEqual(0);
    expect(cpuMicros(2 ** 31 - 1)).toBeUndefined();
  });
});

describe("cpuPerRequest", () => {
  it("divides each process's CPU between the snapshots by the requests", () => {
    const before = { processes: { gateway: 1_000_000, tickets: 500_000 }, postgres: new Map([[10, 100_000]]), client: 2_000_000 };
    const after = {
      processes: { gateway: 1_400_000, tickets: 700_000, players: 50_000 },
      // Backend 11 connected during the run: all of its time is inside the window.
      postgres: new Map([[10, 150_000], [11, 30_000]]),
      client: 2_100_000,
    };
    expect(cpuPerRequest(before, after, 1000)).toEqual({ gateway: 400, tickets: 200, postgres: 80, client: 100 });
  });

  it("leaves out Postgres when no backend was visible", () => {
    const snap = { processes: { gateway: 0 }, postgres: new Map<number, number>(), client: 0 };
    expect(cpuPerRequest(snap, { ...snap, processes: { gateway: 50 } }, 0)).toEqual({ gateway: 50, client: 0 });
  });
});

describe("idleCorrectedMeter", () => {
  it("takes each process's idle CPU over the batch's duration out of its CPU per unit", async () => {
    // A meter over a process burning 1,000 µs per wall-clock millisecond idle; the work adds 400,000 µs.
    let busy = 0;
    const started = Date.now();
    const meter = {
      async snapshot() {
        return { processes: { tickets: (Date.now() - started) * 1000 + busy }, postgres: new Map<number, number>(), client: 0 };
      },
      perRequest: cpuPerRequest,
    };
    const cpu = idleCorrectedMeter(meter);
    await cpu.measureIdle(0.2);
    const per = await cpu.perUnit(100, async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      busy += 400_000;
    });
    // 4,000 µs of work per unit; the idle burn of ~150 ms (1,500 µs per unit) is taken out, within timer slack.
    expect(per.tickets).toBeGreaterThan(3_900);
    expect(per.tickets).toBeLessThan(4_100);
  });
});

describe("rounds of batches", () => {
  it("interleaves the kinds, ends with one more of the first, and gives each kind its batches in order", async () => {
    const order: string[] = [];
    const samples = await interleavedRounds(["none", "some"], 2, async (kind) => {
      order.push(kind);
      return { tickets: order.length };
    });
    expect(order).toEqual(["none", "some", "none", "some", "none"]);
    expect(samples).toEqual({ none: [{ tickets: 1 }, { tickets: 3 }, { tickets: 5 }], some: [{ tickets: 2 }, { tickets: 4 }] });
  });

  it("averages and spreads per process, a process missing from a batch counted as 0", () => {
    const batches: Record<string, number>[] = [{ tickets: 100, postgres: 10 }, { tickets: 300 }];
    expect(meanPerProcess(batches)).toEqual({ tickets: 200, postgres: 5 });
    expect(spreadPerProcess(batches)).toEqual({ tickets: 200, postgres: 10 });
  });
});

describe("addedOver", () => {
  it("gives each process's CPU over the baseline, rounded, a process missing on either side counted as 0, and their sum", () => {
    const { added, sum } = addedOver({ tickets: 100, gateway: 40.4 });
    const on = { tickets: 130.6, gateway: 41, content: 12 };
    expect(added(on, "tickets")).toBe(31);
    expect(added(on, "gateway")).toBe(1);
    expect(added(on, "content")).toBe(12);
    expect(added({}, "tickets")).toBe(-100);
    expect(sum(on, ["tickets", "gateway", "content"])).toBe(44);
  });
});
