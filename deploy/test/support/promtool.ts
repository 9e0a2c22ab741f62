// promtool, Prometheus' rule checker, for the monitoring component's tests. Taken from PATH, else
// from a cache under the OS temp directory, else (as root, with apt) extracted there from Debian's
// `prometheus` package without installing the server: `apt-get download prometheus && dpkg -x`.
// When none of that works the caller falls back to a schema check and says so.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Promtool = { path: string } | { unavailable: string };

const CACHE = join(tmpdir(), "player-support-promtool");
const CACHED = join(CACHE, "root", "usr", "bin", "promtool");

function works(path: string): boolean {
  return spawnSync(path, ["--version"], { encoding: "utf8" }).status === 0;
}

function onPath(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function extractFromDebian(): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  mkdirSync(CACHE, { recursive: true });
  const download = () => spawnSync("apt-get", ["download", "prometheus"], { cwd: CACHE, encoding: "utf8", env });
  let result = download();
  if (result.status !== 0) {
    // A fresh machine has no package lists yet.
    execFileSync("apt-get", ["update"], { stdio: "ignore", env });
    result = download();
  }
  if (result.status !== 0) throw new Error(`apt-get download prometheus failed: ${(result.stderr || result.stdout).trim().slice(0, 300)}`);
  const deb = readdirSync(CACHE).find((name) => /^prometheus_.*\.deb$/.test(name));
  if (!deb) throw new Error("apt-get download prometheus left no .deb");
  execFileSync("dpkg", ["-x", join(CACHE, deb), join(CACHE, "root")], { stdio: "ignore" });
}

let found: Promtool | undefined;

export function promtool(): Promtool {
  if (found) return found;
  const path = onPath();
  if (path && works(path)) return (found = { path });
  if (existsSync(CACHED) && works(CACHED)) return (found = { path: CACHED });
  if (process.getuid?.() !== 0) return (found = { unavailable: "promtool is not on PATH and this user cannot use apt (not root)" });
  if (!onPathCommand("apt-get") || !onPathCommand("dpkg")) return (found = { unavailable: "promtool is not on PATH and there is no apt-get/dpkg" });
  try {
    extractFromDebian();
  } catch (error) {
    return (found = { unavailable: `promtool could not be extracted from Debian's prometheus package: ${(error as Error).message}` });
  }
  return (found = existsSync(CACHED) && works(CACHED) ? { path: CACHED } : { unavailable: `Debian's prometheus package gave no working ${CACHED}` });
}

function onPathCommand(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
}

/** Runs promtool; returns its exit status and combined output. */
export function runPromtool(path: string, args: string[], cwd?: string): { status: number; output: string } {
  const result = spawnSync(path, args, { encoding: "utf8", cwd });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}
