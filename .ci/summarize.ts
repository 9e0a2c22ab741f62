// Adds up the vitest JSON reports in a folder (default .ci/out) and prints one line per
// report, then the closing line CI reads: "N passed, N failed, N skipped".
// --check-missing: also name workspace packages with a test script but no report.
// --failed-step NAME (repeatable): a step of `make test` that failed (lint, typecheck, ...);
// each counts as one failure and is named above the closing line.
// --elapsed SECONDS, --budget SECONDS: how long the whole `make test` took, printed against
// its budget (a figure to watch, never a failure: speed is measured, not asserted).
// Before the closing line: the ten slowest test files of all reports.
// Exits 1 when anything failed. A test file that failed without a failing test (an import
// error, a failing hook) counts as one failure.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

interface AssertionResult {
  status: string;
  fullName?: string;
  title?: string;
  duration?: number;
  failureMessages?: string[];
}
interface FileResult {
  name: string;
  status: string;
  startTime?: number;
  endTime?: number;
  message?: string;
  assertionResults?: AssertionResult[];
}
interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests?: number;
  testResults?: FileResult[];
}

const args = process.argv.slice(2);
const failedSteps: string[] = [];
const positional: string[] = [];
let elapsedSeconds: number | undefined;
let budgetSeconds: number | undefined;
for (let i = 0; i < args.length; i++) {
  const arg = args[i] ?? "";
  if (arg === "--failed-step") failedSteps.push(args[++i] ?? "(unnamed)");
  else if (arg === "--elapsed") elapsedSeconds = Number(args[++i]);
  else if (arg === "--budget") budgetSeconds = Number(args[++i]);
  else if (!arg.startsWith("--")) positional.push(arg);
}
const dir = resolve(positional[0] ?? ".ci/out");
const checkMissing = args.includes("--check-missing");
let files: string[] = [];
try {
  files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
} catch {
  // no reports at all
}

let passed = 0;
let failed = 0;
let skipped = 0;
const durations: { file: string; seconds: number }[] = [];
const failures: { file: string; test: string; message: string }[] = [];
const root = resolve(dirname(import.meta.dirname));
for (const file of files) {
  const report = JSON.parse(readFileSync(join(dir, file), "utf8")) as VitestReport;
  for (const result of report.testResults ?? []) {
    if (result.startTime !== undefined && result.endTime !== undefined) {
      durations.push({ file: result.name.startsWith(root) ? result.name.slice(root.length + 1) : result.name, seconds: (result.endTime - result.startTime) / 1000 });
    }
  }
  for (const result of report.testResults ?? []) {
    const file = result.name.startsWith(root) ? result.name.slice(root.length + 1) : result.name;
    const failedTests = (result.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failedTests) {
      const after = a.duration === undefined ? "" : ` (after ${(a.duration / 1000).toFixed(1)} s)`;
      failures.push({ file, test: `${a.fullName ?? a.title ?? "(unnamed)"}${after}`, message: firstLines(a.failureMessages?.[0] ?? "") });
    }
    if (result.status === "failed" && failedTests.length === 0) failures.push({ file, test: "(the file itself)", message: firstLines(result.message ?? "") });
  }
  const brokenFiles = (report.testResults ?? []).filter(
    (r) => r.status === "failed" && !(r.assertionResults ?? []).some((a) => a.status === "failed"),
  ).length;
  const p = report.numPassedTests;
  const f = report.numFailedTests + brokenFiles;
  const s = report.numPendingTests + (report.numTodoTests ?? 0);
  passed += p;
  failed += f;
  skipped += s;
  console.log(`  ${file.replace(/\.json$/, "").padEnd(16)} ${p} passed, ${f} failed, ${s} skipped`);
}
if (files.length === 0) console.log(`  no vitest JSON reports in ${dir}`);

// Packages with a test script but no report: their tests ran (or not) uncounted.
const reported = new Set(files.map((f) => f.replace(/\.json$/, "")));
for (const pkg of checkMissing ? workspacePackagesWithTests(root) : []) {
  if (!reported.has(pkg)) console.log(`  ${pkg.padEnd(16)} no report: its vitest config should extend vitest.shared.ts`);
}
if (durations.length > 0) {
  console.log("slowest test files:");
  for (const { file, seconds } of durations.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) {
    console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
  }
}
if (elapsedSeconds !== undefined && Number.isFinite(elapsedSeconds)) {
  const clock = (s: number) => `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, "0")} s`;
  const budget = budgetSeconds !== undefined && Number.isFinite(budgetSeconds) ? budgetSeconds : undefined;
  const verdict = budget === undefined ? "" : elapsedSeconds <= budget ? ` (budget ${clock(budget)}: within)` : ` (budget ${clock(budget)}: OVER by ${clock(elapsedSeconds - budget)})`;
  console.log(`make test took ${clock(elapsedSeconds)}${verdict}`);
}
// The failures come last but one, so that the tail of a CI log names them.
if (failures.length > 0) {
  console.log("failed tests:");
  for (const { file, test, message } of failures.slice(0, 20)) {
    console.log(`  ${file} > ${test}`);
    for (const line of message.split("\n")) console.log(`      ${line}`);
  }
  if (failures.length > 20) console.log(`  ... and ${failures.length - 20} more`);
}
for (const step of failedSteps) console.log(`  ${step.padEnd(16)} failed`);
failed += failedSteps.length;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;

/**
 * The first lines of a failure message and the first stack frame of the project's own code,
 * without colour codes, each cut to a readable width. A test that ran out of time has no message
 * of its own in the report (vitest writes "STACK_TRACE_ERROR"): it is named as such.
 */
function firstLines(message: string): string {
  const lines = message.replace(/\u001b\[[0-9;]*m/g, "").split("\n").filter((line) => line.trim() !== "");
  const frame = (line: string) => /^\s*at /.test(line);
  const text = lines.filter((line) => !frame(line)).slice(0, 5);
  const own = lines.find((line) => frame(line) && !line.includes("node_modules"));
  const shown = text.length === 1 && /STACK_TRACE_ERROR/.test(text[0] ?? "") ? ["timed out (or failed without a message): see the test's own output above"] : text;
  return [...shown, ...(own ? [own.trim()] : [])].map((line) => (line.length > 200 ? `${line.slice(0, 200)}…` : line)).join("\n");
}

/** Short names (`@support/x` -> `x`) of workspace packages that have a `test` script. */
function workspacePackagesWithTests(root: string): string[] {
  const workspace = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const globs = [...workspace.matchAll(/^\s+-\s+["']?([^"'\n]+?)["']?\s*$/gm)]
    .map((m) => m[1] ?? "")
    .filter((g) => g && !g.includes("@") && !g.includes(":"));
  const dirs = globs.flatMap((g) => {
    if (!g.endsWith("/*")) return [join(root, g)];
    const parent = join(root, g.slice(0, -2));
    return existsSync(parent) ? readdirSync(parent).map((d) => join(parent, d)) : [];
  });
  const names: string[] = [];
  for (const d of dirs) {
    const manifest = join(d, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; scripts?: Record<string, string> };
    if (pkg.scripts?.test) names.push((pkg.name ?? basename(d)).replace(/^@[^/]+\//, ""));
  }
  return names.sort();
}
