// The CPU profile summary: self time charged per sample, frames of one function added up.
import { describe, expect, it } from "vitest";
import { caseWindow, summarizeProfile, summaryTable, type CpuProfile } from "./profile-summary.ts";

const frame = (functionName: string, url = "", lineNumber = -1) => ({ functionName, url, lineNumber, columnNumber: 0 });

// root -> handle (app.ts:10) -> hash (crypto.ts:3); root -> (idle); a second hash node under
// another parent (same function, another call path).
const profile: CpuProfile = {
  startTime: 0,
  endTime: 10_000,
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 4, 5] },
    { id: 2, callFrame: frame("handle", "file:///repo/services/gateway/src/app.ts", 9), children: [3] },
    { id: 3, callFrame: frame("hash", "file:///repo/libs/x/crypto.ts", 2) },
    { id: 4, callFrame: frame("(idle)") },
    { id: 5, callFrame: frame("", "file:///repo/node_modules/.pnpm/koa@3.3.0/node_modules/koa/lib/application.js", 99), children: [6] },
    { id: 6, callFrame: frame("hash", "file:///repo/libs/x/crypto.ts", 2) },
  ],
  samples: [3, 3, 2, 4, 4, 4, 6, 5],
  timeDeltas: [1000, 1000, 500, 2000, 2000, 1000, 1500, 1000],
};

describe("summarizeProfile", () => {
  it("charges each sample's time delta to the frame it hit and adds up frames of one function", () => {
    const summary = summarizeProfile(profile, 10, "/repo");
    expect(summary.totalMs).toBe(10);
    expect(summary.busyMs).toBe(5);
    expect(summary.frames).toEqual([
      { frame: "(idle)", selfMs: 5, selfPercent: 50, busyPercent: null },
      { frame: "hash libs/x/crypto.ts:3", selfMs: 3.5, selfPercent: 35, busyPercent: 70 },
      { frame: "(anonymous) koa/lib/application.js:100", selfMs: 1, selfPercent: 10, busyPercent: 20 },
      { frame: "handle services/gateway/src/app.ts:10", selfMs: 0.5, selfPercent: 5, busyPercent: 10 },
    ]);
  });

  it("keeps the top N", () => {
    expect(summarizeProfile(profile, 2, "/repo").frames.map((f) => f.frame)).toEqual(["(idle)", "hash libs/x/crypto.ts:3"]);
  });

  it("falls back to hit counts when the profile has no samples", () => {
    const { samples: _s, timeDeltas: _t, ...rest } = profile;
    const counted: CpuProfile = { ...rest, nodes: rest.nodes.map((n) => ({ ...n, hitCount: n.id === 3 ? 3 : n.id === 4 ? 1 : 0 })) };
    const summary = summarizeProfile(counted, 10, "/repo");
    expect(summary.totalMs).toBe(10);
    expect(summary.frames[0]).toEqual({ frame: "hash libs/x/crypto.ts:3", selfMs: 7.5, selfPercent: 75, busyPercent: 100 });
  });

  it("keeps only the samples inside a window of the profile's clock", () => {
    // Sample timestamps: 1000, 2000, 2500, 4500, 6500, 7500, 9000, 10000.
    const summary = summarizeProfile(profile, 10, "/repo", { fromUs: 2000, toUs: 4500 });
    expect(summary.totalMs).toBe(3.5);
    expect(summary.frames.map((f) => [f.frame, f.selfMs])).toEqual([
      ["(idle)", 2],
      ["hash libs/x/crypto.ts:3", 1],
      ["handle services/gateway/src/app.ts:10", 0.5],
    ]);
  });

  it("prints a markdown table", () => {
    const table = summaryTable("gateway.cpuprofile", summarizeProfile(profile, 2, "/repo"));
    expect(table.split("\n")).toEqual([
      "gateway.cpuprofile: 10 ms profiled, 5 ms not idle",
      "",
      "| self ms | % of all | % of busy | frame |",
      "|---|---|---|---|",
      "| 5 | 50 |  | (idle) |",
      "| 3.5 | 35 | 70 | hash libs/x/crypto.ts:3 |",
    ]);
  });
});

describe("caseWindow", () => {
  const results = { rows: [{ name: "bare Koa hello", windowMonotonicUs: [1, 2] as [number, number] }, { name: "POST /tickets", windowMonotonicUs: [10, 20] as [number, number] }, { name: "GET /games" }] };

  it("finds the first measurement whose name contains the text", () => {
    expect(caseWindow(results, "POST /tick")).toEqual({ name: "POST /tickets", fromUs: 10, toUs: 20 });
  });

  it("refuses an unknown name and a row without a window", () => {
    expect(() => caseWindow(results, "PATCH")).toThrow(/no measurement named like "PATCH"/);
    expect(() => caseWindow(results, "GET /games")).toThrow(/no measured window/);
  });
});
