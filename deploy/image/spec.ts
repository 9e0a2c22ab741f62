// What a service's production image is, as data: the Dockerfile generator (dockerfile.ts) writes
// these steps into services/<service>/Dockerfile, and deploy/test/production-build.test.ts runs
// the very same commands without Docker. Change the build here, then `pnpm --filter
// @support/deploy dockerfiles`.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type ServiceName = "gateway" | "content" | "tickets" | "media" | "players" | "webhooks" | "email";

export interface ServiceImage {
  name: ServiceName;
  /** Workspace package name. */
  pkg: string;
  port: number;
  /** The service applies its own schema's migrations with `node src/migrate.ts`. */
  migrates: boolean;
  /**
   * Liveness semantics of the image's HEALTHCHECK: every process answers GET /healthz while it runs
   * (the gateway's reports its own state only; its backends are on /healthz/dependencies).
   */
  healthcheck: "http-healthz" | "tcp";
  /** The static pages (browser apps) the image also holds, built together in a stage of its own (see StaticPage). */
  pages?: readonly StaticPage[];
}

/**
 * A workspace package that builds a static bundle (with its devDependencies, such as Vite) into
 * `<dir>/dist`. The image builds it in a separate stage, so that its build tools stay out of the
 * runtime stage, and copies only the bundle to `<APP_DIR>/<dir>/dist`: the same place relative to
 * the service as in the repository, so the service's default path finds it in both.
 */
export interface StaticPage {
  pkg: string;
  /** The package's folder in the workspace. */
  dir: string;
  /** Files of the repository root its build reads that `turbo prune` leaves out. */
  rootFiles: string[];
}

/** The web support page (apps/web-support); the gateway serves it at /support/. */
export const WEB_SUPPORT_PAGE: StaticPage = { pkg: "@support/web-support", dir: "apps/web-support", rootFiles: ["tsconfig.base.json"] };
/** The support application, the agents' console (apps/agent-console); the gateway serves it at /app/. */
export const AGENT_CONSOLE_PAGE: StaticPage = { pkg: "@support/agent-console", dir: "apps/agent-console", rootFiles: ["tsconfig.base.json"] };

export const SERVICES: readonly ServiceImage[] = [
  { name: "gateway", pkg: "@support/gateway", port: 8080, migrates: false, healthcheck: "http-healthz", pages: [WEB_SUPPORT_PAGE, AGENT_CONSOLE_PAGE] },
  { name: "content", pkg: "@support/content", port: 50051, migrates: true, healthcheck: "http-healthz" },
  { name: "tickets", pkg: "@support/tickets", port: 50052, migrates: true, healthcheck: "http-healthz" },
  { name: "media", pkg: "@support/media", port: 50053, migrates: true, healthcheck: "http-healthz" },
  { name: "players", pkg: "@support/players", port: 50054, migrates: true, healthcheck: "http-healthz" },
  { name: "webhooks", pkg: "@support/webhooks", port: 50055, migrates: true, healthcheck: "http-healthz" },
  { name: "email", pkg: "@support/email", port: 50056, migrates: true, healthcheck: "http-healthz" },
];

export function serviceImage(name: string): ServiceImage {
  const found = SERVICES.find((service) => service.name === name);
  if (!found) throw new Error(`Unknown service ${name}`);
  return found;
}

/** UID/GID of the image's user (the `node` user of the official Node images). */
export const RUNTIME_UID = 1000;
/** Where the pruned workspace lives in the build and runtime stages. */
export const APP_DIR = "/app";
/** The slimming script, copied into the build stage from the build context. */
export const SLIM_SCRIPT = "deploy/image/slim-workspace.ts";
/** The entrypoint after tini that sizes V8's heap from the container's memory limit (see the script). */
export const ENTRYPOINT_SCRIPT = "deploy/image/node-entrypoint.sh";
/** Where the runtime stage puts ENTRYPOINT_SCRIPT. */
export const ENTRYPOINT_IN_IMAGE = "/usr/local/bin/node-entrypoint";
/**
 * The image that every stage starts from, a build argument: production builds use the official
 * Node image of the pinned version; a build without a registry passes a local image with the same
 * layout (Debian bookworm, node and npm in /usr/local/bin, user node 1000:1000).
 */
export const BASE_IMAGE_ARG = "NODE_IMAGE";
export function defaultBaseImage(versions: ToolVersions): string {
  return `node:${versions.node}-bookworm-slim`;
}

export interface ToolVersions {
  node: string;
  pnpm: string;
  turbo: string;
}

/** Node, pnpm and turbo exactly as the repository pins them (root package.json). */
export function toolVersions(repoRoot: string): ToolVersions {
  const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    packageManager?: string;
    devDependencies?: Record<string, string>;
  };
  const pnpm = /^pnpm@(\d+\.\d+\.\d+)/.exec(root.packageManager ?? "")?.[1];
  const node = root.devDependencies?.node;
  const turbo = root.devDependencies?.turbo;
  const exact = /^\d+\.\d+\.\d+$/;
  if (!pnpm || !node || !turbo || !exact.test(node) || !exact.test(turbo)) {
    throw new Error("package.json must pin packageManager pnpm@x.y.z and devDependencies node and turbo to exact versions");
  }
  return { node, pnpm, turbo };
}

// The build steps. Each is an argv; the Dockerfile quotes them for the shell.

/** Copies the service, the workspace packages it depends on and a pruned lockfile into outDir. */
export function pruneStep(image: ServiceImage, outDir: string): string[] {
  return ["turbo", "prune", image.pkg, "--docker", "--out-dir", outDir];
}

/**
 * Installs the third-party production dependencies of the service and of its workspace
 * dependencies, exactly as locked. `--filter-prod` follows only `dependencies`, so test-only
 * workspace packages (testkit, other services used in tests) get nothing installed.
 */
export function installStep(image: ServiceImage, extraFlags: string[] = []): string[] {
  return ["pnpm", "install", "--prod", "--frozen-lockfile", "--filter-prod", `${image.pkg}...`, ...extraFlags];
}

/** Removes what the running service never reads (see slim-workspace.ts). */
export function slimStep(image: ServiceImage, scriptPath: string): string[] {
  return ["node", scriptPath, image.pkg];
}

/** Copies the pages' packages, the workspace packages they use and a pruned lockfile into outDir. */
export function pagePruneStep(pages: readonly StaticPage[], outDir: string): string[] {
  return ["turbo", "prune", ...pages.map((page) => page.pkg), "--docker", "--out-dir", outDir];
}

const filters = (pages: readonly StaticPage[]) => pages.flatMap((page) => ["--filter", page.pkg]);

/**
 * Installs the pages' dependencies, devDependencies included (their bundler), exactly as locked,
 * with those of the workspace packages they import (`<pkg>...`: a shared component's own
 * dependencies resolve from its folder). This happens in a build stage only: the runtime stage
 * receives the built bundle, nothing else.
 */
export function pageInstallStep(pages: readonly StaticPage[], extraFlags: string[] = []): string[] {
  return ["pnpm", "install", "--frozen-lockfile", ...pages.flatMap((page) => ["--filter", `${page.pkg}...`]), ...extraFlags];
}

/** Builds each page into its `<dir>/dist`. */
export function pageBuildStep(pages: readonly StaticPage[]): string[] {
  return ["pnpm", ...filters(pages), "run", "build"];
}

/** Files of the repository root the pages' builds read, each once. */
export function pageRootFiles(pages: readonly StaticPage[]): string[] {
  return [...new Set(pages.flatMap((page) => page.rootFiles))];
}

/** The built bundle, relative to the workspace root (in the build stage and under APP_DIR in the image). */
export function pageOutput(page: StaticPage): string {
  return `${page.dir}/dist`;
}

/** Working directory of the running container. */
export function workdir(image: ServiceImage): string {
  return `${APP_DIR}/services/${image.name}`;
}

/**
 * The container's entrypoint: tini as PID 1 (forwards SIGTERM to Node, reaps zombies), then the
 * heap-sizing script, which execs the command.
 */
export function entrypoint(): string[] {
  return ["/usr/bin/tini", "--", ENTRYPOINT_IN_IMAGE];
}

/** The container's command (after the entrypoint). */
export function startCommand(): string[] {
  return ["node", "src/main.ts"];
}

/** The migration command (the Kubernetes init container runs it with the schema owner's URL). */
export function migrateCommand(): string[] {
  return ["node", "src/migrate.ts"];
}

/** The HEALTHCHECK command: plain Node, so the image needs no curl. */
export function healthcheckCommand(image: ServiceImage): string[] {
  const script =
    image.healthcheck === "tcp"
      ? "require('node:net').connect(Number(process.env.PORT), '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))"
      : "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))";
  return ["node", "-e", script];
}

/** Environment of the running container (besides what Kubernetes sets). */
export function runtimeEnv(image: ServiceImage): Record<string, string> {
  return { NODE_ENV: "production", PORT: String(image.port) };
}
