// `pnpm exec node scripts/bench/profile-summary.ts <file.cpuprofile|directory> [top=25]`: the top
// frames by self time of V8 CPU profiles (what `--cpu-prof` writes; BENCH_CPU_PROF=1 makes every
// process of a bench run write one into the run directory's cpu/). Frames of the same function
// (name, file, line) are added up wherever they appear in the call tree. Prints one markdown
// table per profile.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

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

/**
 * Self time per frame: each sample's time delta is charged to the node it hit. Profiles without
 * samples fall back to hitCount x the mean sampling interval.
 */
export function summarizeProfile(profile: CpuProfile, top = 25, root = ""): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  if (profile.samples && profile.timeDeltas && profile.samples.length === profile.timeDeltas.length) {
    // timeDeltas[i] is the time before sample i; charging it to sample i is what DevTools does.
    profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas![i]!)));
  } else {
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

if (import.meta.main) {
  const target = process.argv[2];
  if (!target) {
    console.error("usage: profile-summary.ts <file.cpuprofile|directory> [top=25]");
    process.exit(2);
  }
  const top = Number(process.argv[3] ?? 25);
  const files = statSync(target).isDirectory()
    ? readdirSync(target).filter((f) => f.endsWith(".cpuprofile")).sort().map((f) => path.join(target, f))
    : [target];
  const root = path.resolve(import.meta.dirname, "../..");
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    console.log(summaryTable(path.basename(file), summarizeProfile(profile, top, root)));
    console.log();
  }
}
