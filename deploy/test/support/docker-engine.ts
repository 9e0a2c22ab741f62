// A private Docker engine for the container tests: Debian's docker.io (installed when missing and
// the machine allows it), its daemon started on its own socket, data and exec roots, without a
// bridge or iptables rules (containers use the host's network), and stopped again by the test.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Debian's docker.io; /usr/local/bin may hold another client first on PATH. */
export const DOCKER = "/usr/bin/docker";
export const DOCKERD = "/usr/sbin/dockerd";

function commandExists(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/**
 * Installs Debian packages that provide `files` when one is missing: as root with apt-get (one
 * `apt-get update` first when the package lists are stale), else fails saying what to install.
 */
export function ensureDebianPackages(packages: string[], files: string[], why: string): void {
  if (files.every((file) => existsSync(file))) return;
  const wanted = packages.join(" ");
  if (process.getuid?.() !== 0 || !commandExists("apt-get")) {
    throw new Error(`${why} needs ${files.join(", ")}: install Debian's ${wanted} (as root: apt-get install ${wanted}); this test must run as root.`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "--yes", "--quiet", "--no-install-recommends", ...packages], { env, encoding: "utf8" });
  let result = install();
  if (result.status !== 0) {
    spawnSync("apt-get", ["update", "--quiet"], { env, encoding: "utf8" });
    result = install();
  }
  if (result.status !== 0 || !files.every((file) => existsSync(file))) {
    throw new Error(`${why}: apt-get install ${wanted} failed:\n${(result.stdout + result.stderr).slice(-3000)}`);
  }
}

export interface CommandOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface DockerEngine {
  socket: string;
  /** Runs the docker client against this engine; rejects on a non-zero exit unless `allowFailure`. */
  docker(args: string[], options?: { cwd?: string; input?: string; allowFailure?: boolean; env?: NodeJS.ProcessEnv }): Promise<CommandOutput>;
  /** Stops every container, then the daemon (SIGTERM, SIGKILL after 30 s), and deletes its roots. */
  stop(): Promise<void>;
}

function runCommand(command: string, args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv }): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    // A command that exits without reading its input closes the pipe first: writing to it then
    // fails with EPIPE, which says nothing the exit code does not (an unhandled one would end the
    // test run).
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Mount points at or below `dir`, deepest first. */
function mountsBelow(dir: string): string[] {
  return readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/**
 * Starts dockerd with everything under `dir` (a fresh folder; keep its path short: the daemon's
 * sockets live below it) and waits until it answers. `dir` becomes a tmpfs when the machine
 * allows (faster builds on a busy disk, and the end of the test is one unmount instead of deleting
 * the images' hundred thousand files); `tmpfsSize` bounds it.
 */
export async function startDockerEngine(dir: string, options: { timeoutMs?: number; tmpfsSize?: string } = {}): Promise<DockerEngine> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  ensureDebianPackages(["docker.io"], [DOCKER, DOCKERD], "The container image test");
  if (process.getuid?.() !== 0) throw new Error("The container image test starts its own Docker daemon and must run as root.");
  mkdirSync(dir, { recursive: true });
  if (options.tmpfsSize) spawnSync("mount", ["-t", "tmpfs", "-o", `size=${options.tmpfsSize},mode=0711`, "tmpfs", dir], { stdio: "ignore" });
  const socket = join(dir, "docker.sock");
  const host = `unix://${socket}`;
  const logFile = join(dir, "dockerd.log");
  const log = openSync(logFile, "a");
  const daemon = spawn(
    DOCKERD,
    [
      "--data-root", join(dir, "data"),
      "--exec-root", join(dir, "exec"),
      "--pidfile", join(dir, "dockerd.pid"),
      "--host", host,
      // No docker0 bridge and no iptables rules: nothing on the host's network changes, and other
      // engines on the machine are unaffected. Containers run with --network host.
      "--bridge", "none",
      "--iptables=false",
      "--ip-masq=false",
    ],
    { stdio: ["ignore", log, log], env: { ...process.env, DOCKER_HOST: host } },
  );
  closeSync(log);
  const env = { ...process.env, DOCKER_HOST: host, DOCKER_BUILDKIT: "1", DOCKER_CONFIG: join(dir, "client") };
  const docker: DockerEngine["docker"] = async (args, options = {}) => {
    const result = await runCommand(DOCKER, args, { cwd: options.cwd, input: options.input, env: { ...env, ...options.env } });
    if (result.code !== 0 && !options.allowFailure) {
      throw new Error(`docker ${args.join(" ")} exited ${result.code}:\n${(result.stdout + result.stderr).slice(-6000)}`);
    }
    return result;
  };
  const stop = async () => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      const running = await docker(["ps", "-aq"], { allowFailure: true });
      const ids = running.stdout.split("\n").filter(Boolean);
      if (ids.length > 0) await docker(["rm", "-f", ...ids], { allowFailure: true });
      daemon.kill("SIGTERM");
      const timer = setTimeout(() => daemon.kill("SIGKILL"), 30_000);
      await exited(daemon);
      clearTimeout(timer);
    }
    // dockerd leaves its network namespace mounted under the exec root (and `dir` may be a tmpfs).
    for (const point of mountsBelow(dir)) spawnSync("umount", ["--lazy", point], { stdio: "ignore" });
    await runCommand("rm", ["-rf", dir], {});
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.exitCode !== null || daemon.signalCode !== null) {
      const text = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-4000) : "";
      throw new Error(`dockerd exited (${daemon.exitCode ?? daemon.signalCode}) before answering:\n${text}`);
    }
    const version = await docker(["version", "--format", "{{.Server.Version}}"], { allowFailure: true });
    if (version.code === 0) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`dockerd did not answer on ${socket} within ${timeoutMs} ms:\n${version.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { socket, docker, stop };
}
