// Runs a service image's build and start steps (deploy/image/spec.ts) without Docker: the build
// context filtered by .dockerignore, `turbo prune`, `pnpm install --prod --frozen-lockfile`,
// the slimming script, then the container's commands as the image's user.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import http2 from "node:http2";
import { join, relative } from "node:path";
import {
  RUNTIME_UID,
  SLIM_SCRIPT,
  healthcheckCommand,
  installStep,
  migrateCommand,
  pageBuildStep,
  pageInstallStep,
  pageOutput,
  pagePruneStep,
  pageRootFiles,
  pruneStep,
  runtimeEnv,
  slimStep,
  startCommand,
  type ServiceImage,
} from "../../image/spec.ts";

export interface CommandResult {
  code: number | null;
  output: string;
}

/** Runs argv (argv[0] resolved by `resolveCommand`) and rejects with its output on failure. */
export function run(argv: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number }): Promise<CommandResult> {
  const [command, ...args] = resolveCommand(argv);
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { cwd: options.cwd, env: options.env ?? process.env, uid: options.uid, gid: options.gid });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve({ code, output });
      else reject(new Error(`${argv.join(" ")} (in ${options.cwd}) exited with ${code}:\n${output.slice(-4000)}`));
    });
  });
}

let repoRootForTools = "";
/** Where `turbo` comes from (the repository's pinned devDependency). */
export function useRepoTools(root: string): void {
  repoRootForTools = root;
}

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/** node: this Node (24, from pnpm); turbo: the repository's; pnpm: from PATH or npm_execpath. */
export function resolveCommand(argv: string[]): string[] {
  const [command, ...args] = argv;
  if (command === "node") return [process.execPath, ...args];
  if (command === "turbo") return [join(repoRootForTools, "node_modules", ".bin", "turbo"), ...args];
  if (command === "pnpm" && !onPath("pnpm")) {
    const execPath = process.env.npm_execpath;
    if (execPath && /pnpm/.test(execPath)) return [process.execPath, execPath, ...args];
  }
  return argv;
}

// ---- build context -------------------------------------------------------------------------

/** .dockerignore as Docker reads it: root-relative patterns, `**`, `*`, `?`, `!` re-includes. */
export function dockerignoreMatcher(text: string): (relativePath: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const negate = line.startsWith("!");
      const pattern = (negate ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      let source = "";
      for (let i = 0; i < pattern.length; i++) {
        const char = pattern[i]!;
        if (char === "*" && pattern[i + 1] === "*") {
          // `**/` matches any number of folders, `**` at the end anything.
          if (pattern[i + 2] === "/") {
            source += "(?:.*/)?";
            i += 2;
          } else {
            source += ".*";
            i += 1;
          }
        } else if (char === "*") source += "[^/]*";
        else if (char === "?") source += "[^/]";
        else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      // A folder's pattern also excludes what is inside it.
      return { negate, regex: new RegExp(`^${source}(?:/.*)?$`) };
    });
  return (relativePath) => {
    let excluded = false;
    for (const rule of rules) if (rule.regex.test(relativePath)) excluded = !rule.negate;
    return excluded;
  };
}

/** Copies the repository into dest as Docker would send it as the build context. */
export function createBuildContext(root: string, dest: string): void {
  const excluded = dockerignoreMatcher(readFileSync(join(root, ".dockerignore"), "utf8"));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const rel = relative(root, path);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue; // a dangling link
      if (stat.isDirectory()) {
        // Docker still descends into an excluded folder when a later `!` may re-include; we
        // have no such pattern, so an excluded folder is skipped whole.
        if (excluded(rel)) continue;
        walk(path);
      } else if (!excluded(rel)) {
        mkdirSync(join(dest, relative(root, dir)), { recursive: true });
        cpSync(path, join(dest, rel));
      }
    }
  };
  walk(root);
}

// ---- build -------------------------------------------------------------------------------------

export interface BuiltImage {
  image: ServiceImage;
  /** The image's /app. */
  appDir: string;
  /** The image's WORKDIR. */
  workdir: string;
  /** What the build steps printed, for failures. */
  log: string;
}

/**
 * The Dockerfile's prune, build and slim stages: `turbo prune` in the context, the pruned
 * package.json files and lockfile, `pnpm install --prod --frozen-lockfile`, the full sources,
 * then slim-workspace.ts (from `slimScriptRoot`, the repository whose context holds it). For an
 * image with pages, also their stage (prune, install with devDependencies, the root files, build)
 * in a folder of its own, and then only the built bundles copied into the app, as the runtime
 * stage copies them.
 */
export async function buildImage(
  image: ServiceImage,
  options: { context: string; workDir: string; slimScriptRoot: string; installFlags: string[] },
): Promise<BuiltImage> {
  const pruned = join(options.workDir, "pruned");
  const appDir = join(options.workDir, "app");
  const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" };
  let log = "";
  log += (await run(pruneStep(image, pruned), { cwd: options.context, env })).output;
  mkdirSync(appDir, { recursive: true });
  cpSync(join(pruned, "json"), appDir, { recursive: true });
  log += (await run(installStep(image, options.installFlags), { cwd: appDir, env })).output;
  cpSync(join(pruned, "full"), appDir, { recursive: true });
  log += (await run(slimStep(image, join(options.slimScriptRoot, SLIM_SCRIPT)), { cwd: appDir, env })).output;
  const pages = image.pages ?? [];
  if (pages.length > 0) {
    const prunedPage = join(options.workDir, "pruned-page");
    const pageDir = join(options.workDir, "page");
    log += (await run(pagePruneStep(pages, prunedPage), { cwd: options.context, env })).output;
    mkdirSync(pageDir, { recursive: true });
    cpSync(join(prunedPage, "json"), pageDir, { recursive: true });
    log += (await run(pageInstallStep(pages, options.installFlags), { cwd: pageDir, env })).output;
    cpSync(join(prunedPage, "full"), pageDir, { recursive: true });
    for (const file of pageRootFiles(pages)) copyFileSync(join(options.context, file), join(pageDir, file));
    log += (await run(pageBuildStep(pages), { cwd: pageDir, env })).output;
    for (const page of pages) cpSync(join(pageDir, pageOutput(page)), join(appDir, pageOutput(page)), { recursive: true });
  }
  return { image, appDir, workdir: join(appDir, "services", image.name), log };
}

let runtimeNode: string | undefined;

/**
 * Lets the image's user (uid 1000) read the build in dir (a fresh temporary folder), as the
 * image's files are world-readable, and run Node, as the image's /usr/local/bin/node is. When we
 * are root, this Node (which lives in the repository's node_modules, perhaps inside a folder only
 * root may enter, such as /root) is linked, or else copied, into dir/bin, and the commands that
 * run as the image's user start that one.
 */
export function openForRuntimeUser(dir: string): void {
  chmodSync(dir, 0o755);
  if (process.getuid?.() !== 0) return;
  const bin = join(dir, "bin");
  mkdirSync(bin, { mode: 0o755 });
  const node = join(bin, "node");
  try {
    linkSync(process.execPath, node);
  } catch {
    copyFileSync(process.execPath, node); // another file system
  }
  chmodSync(node, 0o755);
  runtimeNode = node;
}

/** uid/gid of the image's user when we can switch to it (we are root), else ours. */
export function runtimeUser(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: RUNTIME_UID, gid: RUNTIME_UID } : {};
}

/** Runs argv as the image's user (when we are root): `node` is the copy openForRuntimeUser made. */
function runAsRuntimeUser(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CommandResult> {
  return run(runtimeArgv(argv), { ...options, ...runtimeUser() });
}

function runtimeArgv(argv: string[]): string[] {
  if (argv[0] !== "node" || runtimeUser().uid === undefined) return argv;
  if (!runtimeNode) throw new Error("openForRuntimeUser(workDir) must run before a command runs as the image's user");
  return [runtimeNode, ...argv.slice(1)];
}

/** The container's environment: the image's ENV plus what Kubernetes would set. */
export function containerEnv(image: ServiceImage, env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", ...runtimeEnv(image), ...env };
}

/** `node src/migrate.ts` in the image's WORKDIR, as the migrate init container runs it. */
export async function runMigrations(built: BuiltImage, env: Record<string, string>): Promise<string> {
  const result = await runAsRuntimeUser(migrateCommand(), { cwd: built.workdir, env: containerEnv(built.image, env) });
  return result.output;
}

// ---- run ---------------------------------------------------------------------------------------

export interface RunningService {
  name: string;
  port: number;
  child: ChildProcess;
  /** stdout and stderr so far (pino JSON lines). */
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code (null when it had to be killed after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

export function startContainer(built: BuiltImage, env: Record<string, string>, port: number): RunningService {
  const [command, ...args] = resolveCommand(runtimeArgv(startCommand()));
  const child = spawn(command!, args, {
    cwd: built.workdir,
    env: containerEnv(built.image, { ...env, PORT: String(port) }),
    ...runtimeUser(),
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    name: built.image.name,
    port,
    child,
    output: () => output,
    exited,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return child.signalCode === "SIGKILL" ? null : code;
    },
  };
}

/** GET http://127.0.0.1:port/path → status (0 when nothing answers). */
export async function httpStatus(port: number, path: string): Promise<number> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(3_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Waits until GET path answers 200; fails early when the process exits. */
export async function waitForHttp200(service: RunningService, path: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) {
      throw new Error(`${service.name} exited with ${service.child.exitCode} before ${path} answered:\n${service.output().slice(-4000)}`);
    }
    last = await httpStatus(service.port, path);
    if (last === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${service.name}: GET ${path} was still ${last} after ${timeoutMs} ms:\n${service.output().slice(-4000)}`);
}

/**
 * What the kubelet's gRPC probe does: grpc.health.v1.Health/Check with service "" over h2c.
 * Returns the serving status (1 = SERVING, 2 = NOT_SERVING) or throws on a gRPC error.
 */
export function grpcHealthCheck(port: number, timeoutMs = 3_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const fail = (error: Error) => {
      session.destroy();
      reject(error);
    };
    session.once("error", fail);
    const request = session.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/grpc",
      te: "trailers",
    });
    request.setTimeout(timeoutMs, () => fail(new Error("gRPC health check timed out")));
    const chunks: Buffer[] = [];
    let grpcStatus: string | undefined;
    request.on("response", (headers) => {
      if (headers["grpc-status"] !== undefined) grpcStatus = String(headers["grpc-status"]);
    });
    request.on("trailers", (trailers) => {
      grpcStatus = String(trailers["grpc-status"]);
    });
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.once("error", fail);
    request.on("end", () => {
      session.close();
      if (grpcStatus !== "0") return reject(new Error(`grpc-status ${grpcStatus}`));
      // One length-prefixed message: HealthCheckResponse { status = 1: enum } → 0x08 <status>.
      const body = Buffer.concat(chunks);
      const message = body.subarray(5, 5 + body.readUInt32BE(1));
      resolve(message.length === 0 ? 0 : message[0] === 0x08 ? message[1]! : -1);
    });
    // An empty HealthCheckRequest (service "") in gRPC's framing: uncompressed, length 0.
    request.end(Buffer.from([0, 0, 0, 0, 0]));
  });
}

/** Runs the image's HEALTHCHECK command against a running service; returns its exit code. */
export async function runHealthcheck(built: BuiltImage, port: number): Promise<number | null> {
  try {
    const result = await runAsRuntimeUser(healthcheckCommand(built.image), {
      cwd: built.workdir,
      env: containerEnv(built.image, { PORT: String(port) }),
    });
    return result.code;
  } catch {
    return 1;
  }
}

/** Workspace packages present in a build (folders holding a package.json under libs/ and services/). */
export function workspacePackagesIn(appDir: string): string[] {
  const found: string[] = [];
  for (const parent of ["libs", "services"]) {
    const dir = join(appDir, parent);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) if (existsSync(join(dir, entry, "package.json"))) found.push(`${parent}/${entry}`);
  }
  return found.sort();
}
