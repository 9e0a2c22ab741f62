// `pnpm exec node scripts/bench/profile-summary.ts <file.cpuprofile|directory> [--top 25] [--case <name>]`:
// the top frames by self time of V8 CPU profiles (what `--cpu-prof` writes; BENCH_CPU_PROF=1
// makes every process of a bench run write one into the run directory's cpu/). Frames of the same
// function (name, file, line) are added up wherever they appear in the call tree. Prints one
// markdown table per profile. `--case` keeps only the samples of that measurement's window (the
// first row of the run's results.json whose name contains it): a profile covers the process's
// whole life, start-up included.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  /** µs since the previous sample, one per sample. */
  timeDeltas?: number[];
}

export interface Frame {
  /** `function file:line` (1-based line), or the V8 pseudo-frame's name: (idle), (garbage collector), (program). */
  frame: string;
  selfMs: number;
  /** Share of the profile's whole time, idle included. */
  selfPercent: number;
  /** Share of the time not idle (what the process spent working); null for (idle) itself. */
  busyPercent: number | null;
}

export interface ProfileSummary {
  totalMs: number;
  /** Time not idle: what the process actually spent on the CPU (as V8 sampled it). */
  busyMs: number;
  frames: Frame[];
}

function frameName(node: CpuProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || "(anonymous)";
  let file = url.replace(/^file:\/\//, "");
  if (root && file.startsWith(root)) file = file.slice(root.length).replace(/^\//, "");
  // pnpm's store path says nothing the package name does not.
  file = file.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "");
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
}

/** A time window on the profile's clock (µs, the machine's monotonic clock). */
export interface Window {
  fromUs: number;
  toUs: number;
}

/**
 * Self time per frame: each sample's time delta is charged to the node it hit. With `window`,
 * only samples whose timestamp (startTime + the deltas so far) falls inside it. Profiles without
 * samples fall back to hitCount x the mean sampling interval (no window possible).
 */
export function summarizeProfile(profile: CpuProfile, top = 25, root = "", window?: Window): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  if (profile.samples && profile.timeDeltas && profile.samples.length === profile.timeDeltas.length) {
    // timeDeltas[i] is the time before sample i; charging it to sample i is what DevTools does.
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const delta = Math.max(0, profile.timeDeltas![i]!);
      at += delta;
      if (window && (at < window.fromUs || at > window.toUs)) return;
      selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    });
  } else {
    if (window) throw new Error("this profile has no samples: it cannot be cut to a window");
    const hits = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
    const interval = hits > 0 ? (profile.endTime - profile.startTime) / hits : 0;
    for (const n of profile.nodes) selfUs.set(n.id, (n.hitCount ?? 0) * interval);
  }
  const byFrame = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = frameName(node, root);
    byFrame.set(name, (byFrame.get(name) ?? 0) + us);
  }
  const totalUs = [...byFrame.values()].reduce((a, b) => a + b, 0);
  const idleUs = byFrame.get("(idle)") ?? 0;
  const round = (x: number) => Math.round(x * 10) / 10;
  const frames = [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([frame, us]) => ({
      frame,
      selfMs: round(us / 1000),
      selfPercent: totalUs > 0 ? round((us / totalUs) * 100) : 0,
      busyPercent: frame === "(idle)" ? null : totalUs > idleUs ? round((us / (totalUs - idleUs)) * 100) : 0,
    }));
  return { totalMs: round(totalUs / 1000), busyMs: round((totalUs - idleUs) / 1000), frames };
}

export function summaryTable(name: string, summary: ProfileSummary): string {
  return [
    `${name}: ${summary.totalMs} ms profiled, ${summary.busyMs} ms not idle`,
    "",
    "| self ms | % of all | % of busy | frame |",
    "|---|---|---|---|",
    ...summary.frames.map((f) => `| ${f.selfMs} | ${f.selfPercent} | ${f.busyPercent ?? ""} | ${f.frame.replaceAll("|", "\\|")} |`),
  ].join("\n");
}

/** The measured window of the first row of a run's results.json whose name contains `name`. */
export function caseWindow(results: { rows?: { name: string; windowMonotonicUs?: [number, number] }[] }, name: string): Window & { name: string } {
  const row = results.rows?.find((r) => r.name.includes(name));
  if (!row) throw new Error(`no measurement named like "${name}" in the results (${(results.rows ?? []).map((r) => r.name).join(", ")})`);
  if (!row.windowMonotonicUs) throw new Error(`the results of "${row.name}" have no measured window (an older run)`);
  return { name: row.name, fromUs: row.windowMonotonicUs[0], toUs: row.windowMonotonicUs[1] };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "25" }, case: { type: "string" } } });
  const target = positionals[0];
  if (!target) {
    console.error("usage: profile-summary.ts <file.cpuprofile|directory> [--top 25] [--case <measurement name>]");
    process.exit(2);
  }
  const directory = statSync(target).isDirectory();
  const files = directory ? readdirSync(target).filter((f) => f.endsWith(".cpuprofile")).sort().map((f) => path.join(target, f)) : [target];
  // The run directory holds results.json; the profiles are in its cpu/.
  let window: (Window & { name: string }) | undefined;
  if (values.case !== undefined) {
    const runDir = path.dirname(directory ? path.resolve(target) : path.dirname(path.resolve(target)));
    window = caseWindow(JSON.parse(readFileSync(path.join(runDir, "results.json"), "utf8")), values.case);
  }
  const root = path.resolve(import.meta.dirname, "../..");
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    const title = `${path.basename(file)}${window ? ` during "${window.name}"` : ""}`;
    console.log(summaryTable(title, summarizeProfile(profile, Number(values.top), root, window)));
    console.log();
  }
}
