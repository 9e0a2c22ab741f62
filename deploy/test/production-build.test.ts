// The production images, built and started without Docker: for every service the Dockerfile's
// steps (build context by .dockerignore, turbo prune, pnpm install --prod --frozen-lockfile
// --offline, slim) and then the container's commands, as the image's non-root user: migrations
// as the schema owner's role, the service as its data-only role, probes as the kubelet sends them.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createTestInfra, createTestServiceIdentities, freePort, randomId, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productionClosure } from "../image/slim-workspace.ts";
import { RUNTIME_UID, SERVICES, type ServiceName } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import {
  buildImage,
  createBuildContext,
  grpcHealthCheck,
  httpStatus,
  openForRuntimeUser,
  runHealthcheck,
  runMigrations,
  startContainer,
  useRepoTools,
  waitForHttp200,
  workspacePackagesIn,
  type BuiltImage,
  type RunningService,
} from "./support/image-build.ts";
import { dropRoles, provisionServiceRoles, type ServiceRoles } from "./support/roles.ts";

const root = repoRoot();
const INTERNAL = SERVICES.filter((image) => image.name !== "gateway");
/** The workspace packages an image must hold: the service and what its `dependencies` reach, read from the repository. */
function expectedPackages(pkg: string): string[] {
  return [...productionClosure(root, pkg).values()].map((dir) => relative(root, dir)).sort();
}
const DEV_ONLY_PACKAGES = ["vitest", "typescript", "eslint", "testcontainers", "@20minutes+s3rver", "pino-pretty", "turbo", "@bufbuild+buf"];

let infra: TestInfra;
let work: string;
const built = new Map<ServiceName, BuiltImage>();
const roles = new Map<ServiceName, ServiceRoles>();
const running = new Map<ServiceName, RunningService>();
const rolePrefix = `t${randomId(6)}_`;
// NODE_ENV=production (the image's) requires each process's service identity key and the trust.
const identities = createTestServiceIdentities();

/** The real uid of a process (Linux). */
function processUid(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

function serviceEnv(name: ServiceName): Record<string, string> {
  return {
    NATS_URL: infra.natsUrl,
    NATS_PREFIX: infra.natsPrefix,
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT_MS: "10000",
    ...identities.env(name),
    ...(name === "media"
      ? {
          S3_ENDPOINT: infra.s3.endpoint,
          S3_REGION: infra.s3.region,
          S3_BUCKET: infra.s3.bucket,
          S3_ACCESS_KEY_ID: infra.s3.accessKeyId,
          S3_SECRET_ACCESS_KEY: infra.s3.secretAccessKey,
          S3_FORCE_PATH_STYLE: "true",
        }
      : {}),
    ...(name === "tickets" ? { CURSOR_SECRET: "production-build-test", AUTO_CLOSE_INTERVAL_MS: "0" } : {}),
    // NODE_ENV=production requires the secrets key.
    ...(name === "webhooks" ? { WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") } : {}),
    ...(name === "content" ? { TOTP_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64") } : {}),
    // NODE_ENV=production requires a relay; nothing is sent in this test.
    ...(name === "email" ? { SMTP_URL: "smtp://127.0.0.1:2525" } : {}),
  };
}

/** Every process serves its metrics on a listener of its own: a free port each, not the shared default. */
async function metricsEnv(): Promise<Record<string, string>> {
  return { METRICS_PORT: String(await freePort()), METRICS_HOST: "127.0.0.1" };
}

beforeAll(async () => {
  useRepoTools(root);
  infra = await createTestInfra();
  work = mkdtempSync(join(tmpdir(), "support-images-"));
  openForRuntimeUser(work);
  const context = join(work, "context");
  createBuildContext(root, context);
  // Two builds at a time: CI has two cores.
  const queue = [...SERVICES];
  const worker = async () => {
    for (let image = queue.shift(); image; image = queue.shift()) {
      const result = await buildImage(image, {
        context,
        workDir: join(work, image.name),
        slimScriptRoot: context,
        installFlags: ["--offline", "--reporter=append-only"],
      });
      built.set(image.name, result);
    }
  };
  await Promise.all([worker(), worker()]);
}, 240_000);

afterAll(async () => {
  await Promise.all([...running.values()].map((service) => service.stop(5_000)));
  await infra?.stop();
  await dropRoles(infra?.databaseUrl ?? "", [...roles.values()].flatMap((r) => [r.owner, r.app])).catch(() => undefined);
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("the image's contents", () => {
  it.each(SERVICES.map((image) => [image.name]))("%s holds only its service, its production libraries and production dependencies", (name) => {
    const image = built.get(name as ServiceName)!;
    const packages = workspacePackagesIn(image.appDir);
    expect(packages).toEqual(expectedPackages(image.image.pkg));
    expect(packages).not.toContain("libs/testkit");
    // The gateway's tests start the six services (devDependencies): its image holds none of them.
    if (name === "gateway") expect(packages.filter((path) => path.startsWith("services/"))).toEqual(["services/gateway"]);
    const installed = readdirSync(join(image.appDir, "node_modules", ".pnpm"));
    for (const devOnly of DEV_ONLY_PACKAGES) {
      expect(installed.filter((entry) => entry.startsWith(`${devOnly}@`)), `${devOnly} in the ${name} image`).toEqual([]);
    }
    const leftovers = readdirSync(image.appDir, { recursive: true, encoding: "utf8" }).filter(
      (path) => !path.includes("node_modules") && (/\.test\.ts$/.test(path) || /(^|\/)(test|vitest\.config\.ts|tsconfig\.json|turbo\.json|patches)$/.test(path)),
    );
    expect(leftovers).toEqual([]);
  });

  it("the gateway's holds the built web support page and console and nothing else of their packages; the others hold no page", () => {
    const gateway = built.get("gateway")!;
    expect(readdirSync(join(gateway.appDir, "apps")).sort()).toEqual(["agent-console", "web-support"]);
    for (const app of ["web-support", "agent-console"]) {
      expect(readdirSync(join(gateway.appDir, "apps", app))).toEqual(["dist"]);
      const dist = join(gateway.appDir, "apps", app, "dist");
      expect(readdirSync(dist)).toContain("index.html");
      expect(readdirSync(join(dist, "assets")).some((file) => file.endsWith(".js"))).toBe(true);
    }
    for (const image of INTERNAL) expect(existsSync(join(built.get(image.name)!.appDir, "apps")), image.name).toBe(false);
  });
});

describe("internal services from their images", () => {
  it.each(INTERNAL.map((image) => [image.name]))(
    "%s migrates as its schema owner, then serves /healthz, /readyz and grpc.health.v1 as its data-only role",
    async (name) => {
      const service = name as ServiceName;
      const image = built.get(service)!;
      const serviceRoles = provisionServiceRoles(root, infra.databaseUrl, service, rolePrefix);
      roles.set(service, serviceRoles);

      const migrated = await runMigrations(image, { ...serviceEnv(service), DATABASE_URL: serviceRoles.migrationUrl });
      expect(migrated).toMatch(/migrations applied/);
      // Twice: every pod's init container runs it, so it must be a no-op when up to date.
      await runMigrations(image, { ...serviceEnv(service), DATABASE_URL: serviceRoles.migrationUrl });

      const port = await freePort();
      const started = startContainer(image, { ...serviceEnv(service), ...(await metricsEnv()), DATABASE_URL: serviceRoles.appUrl }, port);
      running.set(service, started);
      await waitForHttp200(started, "/healthz");
      await waitForHttp200(started, "/readyz", 15_000);
      expect(await grpcHealthCheck(port)).toBe(1); // SERVING
      expect(await runHealthcheck(image, port)).toBe(0);
      if (process.getuid?.() === 0) expect(processUid(started.child.pid!)).toBe(RUNTIME_UID);
    },
    60_000,
  );
});

describe("the gateway from its image", () => {
  it("answers /healthz/dependencies 200 once the six services from their images are SERVING, and serves its OpenAPI document and docs", async () => {
    for (const image of INTERNAL) expect(running.get(image.name), `${image.name} is running`).toBeDefined();
    const image = built.get("gateway")!;
    const url = (name: ServiceName) => `http://127.0.0.1:${running.get(name)!.port}`;
    const port = await freePort();
    const gateway = startContainer(
      image,
      {
        ...serviceEnv("gateway"),
        ...(await metricsEnv()),
        CONTENT_URL: url("content"),
        TICKETS_URL: url("tickets"),
        MEDIA_URL: url("media"),
        PLAYERS_URL: url("players"),
        WEBHOOKS_URL: url("webhooks"),
        EMAIL_URL: url("email"),
      },
      port,
    );
    running.set("gateway", gateway);
    await waitForHttp200(gateway, "/healthz/dependencies");
    expect(await httpStatus(port, "/readyz")).toBe(200);
    expect(await httpStatus(port, "/healthz")).toBe(200);
    // Files read at run time (openapi.yaml beside the code, redoc from node_modules) are in the image.
    expect(await httpStatus(port, "/openapi.json")).toBe(200);
    expect(await httpStatus(port, "/docs")).toBe(200);
    expect(await runHealthcheck(image, port)).toBe(0);
  }, 60_000);

  it("serves the web support page at /support/ from its default folder (WEB_SUPPORT_DIR unset), with its Content-Security-Policy", async () => {
    const gateway = running.get("gateway")!;
    const page = await fetch(`http://127.0.0.1:${gateway.port}/support/`);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // The bundle that was built for the image, not some other copy: its index.html names its hashed script.
    const builtIndex = readFileSync(join(built.get("gateway")!.appDir, "apps/web-support/dist/index.html"), "utf8");
    expect(html).toBe(builtIndex);
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(`http://127.0.0.1:${gateway.port}/support/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  }, 30_000);

  it("serves the support application at /app/ from its default folder (AGENT_CONSOLE_DIR unset): any page path, its assets", async () => {
    const gateway = running.get("gateway")!;
    const builtIndex = readFileSync(join(built.get("gateway")!.appDir, "apps/agent-console/dist/index.html"), "utf8");
    for (const path of ["/app/", "/app/sign-in", "/app/tickets/0b6f1d7e-5a43-4a3e-9f0b-1c2d3e4f5a6b"]) {
      const page = await fetch(`http://127.0.0.1:${gateway.port}${path}`);
      expect(page.status, path).toBe(200);
      expect(await page.text()).toBe(builtIndex);
      expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self';/);
    }
    const script = /src="\/app\/(assets\/[^"]+\.js)"/.exec(builtIndex)?.[1];
    expect(script, builtIndex).toBeDefined();
    const asset = await fetch(`http://127.0.0.1:${gateway.port}/app/${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  }, 30_000);

  it("reports a stopped service on /healthz/dependencies (503) and stays ready and live", async () => {
    const gateway = running.get("gateway")!;
    const media = running.get("media")!;
    expect(await media.stop()).toBe(0);
    running.delete("media");
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline && (status = await httpStatus(gateway.port, "/healthz/dependencies")) !== 503) await new Promise((r) => setTimeout(r, 200));
    expect(status).toBe(503);
    expect(await httpStatus(gateway.port, "/readyz")).toBe(200);
    expect(await runHealthcheck(built.get("gateway")!, gateway.port)).toBe(0);
  }, 30_000);
});

describe("shutdown", () => {
  it("every service drains and exits 0 on SIGTERM", async () => {
    const codes = await Promise.all([...running.entries()].map(async ([name, service]) => [name, await service.stop()] as const));
    running.clear();
    expect(Object.fromEntries(codes)).toEqual(Object.fromEntries(codes.map(([name]) => [name, 0])));
  }, 30_000);
});
