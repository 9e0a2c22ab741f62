// The images built and run by a real engine: Debian's docker.io with its own daemon (started here,
// stopped at the end), every service's Dockerfile built with BuildKit from a local base image
// passed as NODE_IMAGE (no image registry is needed), then the containers run as the manifests run
// them (read-only root filesystem, uid 1000, no capabilities, a tmpfs /tmp, the memory limit)
// against this run's Postgres database and NATS prefix: migrations, health, a tenant applied with
// the admin tool, a ticket created and read back through the containerised gateway, the engine's
// own HEALTHCHECK verdicts, the heap limit the entrypoint sets, and a clean stop.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestInfra, createTestServiceIdentities, freePort, randomId, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_IMAGE_ARG, ENTRYPOINT_SCRIPT, RUNTIME_UID, SERVICES, entrypoint, migrateCommand, startCommand, toolVersions, type ServiceImage, type ServiceName } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import { startDockerEngine, type DockerEngine } from "./support/docker-engine.ts";
import { httpStatus } from "./support/image-build.ts";
import { importLocalBaseImage, type LocalBaseImage } from "./support/local-base-image.ts";
import { dropRoles, provisionServiceRoles, type ServiceRoles } from "./support/roles.ts";

const root = repoRoot();
const versions = toolVersions(root);
const INTERNAL = SERVICES.filter((image) => image.name !== "gateway");
const runId = randomId(6);
const ADMIN_TOKEN = `admin-${runId}`;
/** The service containers' memory limit in the base manifests (deploy/k8s/base/<service>/deployment.yaml). */
const SERVICE_MEMORY = "512m";
/** The migrate init containers' limit. */
const MIGRATE_MEMORY = "256m";

let engine: DockerEngine | undefined;
let infra: TestInfra;
let base: LocalBaseImage;
const timings: Record<string, number> = {};
const roles = new Map<ServiceName, ServiceRoles>();
const ports = new Map<ServiceName, number>();
/** Each container's metrics listener (host network: the default 9464 would be shared by all six). */
const metricsPorts = new Map<ServiceName, number>();
const containers = new Map<ServiceName, string>();

function tagOf(name: ServiceName): string {
  return `player-support/${name}:test-${runId}`;
}

/** `docker run` options that make a container what the Deployments' securityContext and volumes make it. */
function asTheManifestsRunIt(memory?: string): string[] {
  return [
    "--network", "host",
    "--read-only",
    "--user", `${RUNTIME_UID}:${RUNTIME_UID}`,
    "--cap-drop", "ALL",
    "--security-opt", "no-new-privileges",
    // The emptyDir (medium: Memory, sizeLimit 16Mi) mounted at /tmp.
    "--tmpfs", "/tmp:rw,nosuid,nodev,size=16m",
    ...(memory ? ["--memory", memory] : []),
  ];
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]);
}

function url(name: ServiceName): string {
  return `http://127.0.0.1:${ports.get(name)!}`;
}

// The images run with NODE_ENV=production: each process needs its service identity key and the trust.
const identities = createTestServiceIdentities();

function serviceEnv(name: ServiceName): Record<string, string> {
  const common = {
    ...identities.env(name),
    PORT: String(ports.get(name)!),
    HOST: "127.0.0.1",
    METRICS_PORT: String(metricsPorts.get(name)!),
    METRICS_HOST: "127.0.0.1",
    NATS_URL: infra.natsUrl,
    NATS_PREFIX: infra.natsPrefix,
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT_MS: "10000",
  };
  switch (name) {
    case "gateway":
      return { ...common, CONTENT_URL: url("content"), TICKETS_URL: url("tickets"), MEDIA_URL: url("media"), PLAYERS_URL: url("players"), WEBHOOKS_URL: url("webhooks"), EMAIL_URL: url("email") };
    case "content":
      // The image runs with NODE_ENV=production, where the TOTP encryption key is required.
      return { ...common, DATABASE_URL: roles.get(name)!.appUrl, ADMIN_TOKEN, TOTP_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64") };
    case "players":
      return { ...common, DATABASE_URL: roles.get(name)!.appUrl, ADMIN_TOKEN };
    case "tickets":
      return {
        ...common,
        DATABASE_URL: roles.get(name)!.appUrl,
        CONTENT_URL: url("content"),
        PLAYERS_URL: url("players"),
        MEDIA_URL: url("media"),
        CURSOR_SECRET: `cursor-${runId}`,
        AUTO_CLOSE_INTERVAL_MS: "0",
      };
    case "media":
      return {
        ...common,
        DATABASE_URL: roles.get(name)!.appUrl,
        CONTENT_URL: url("content"),
        S3_ENDPOINT: infra.s3.endpoint,
        S3_REGION: infra.s3.region,
        S3_BUCKET: infra.s3.bucket,
        S3_ACCESS_KEY_ID: infra.s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: infra.s3.secretAccessKey,
        S3_FORCE_PATH_STYLE: "true",
      };
    case "webhooks":
      // The image runs with NODE_ENV=production, where the secrets key is required.
      return { ...common, DATABASE_URL: roles.get(name)!.appUrl, ADMIN_TOKEN, CONTENT_URL: url("content"), WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") };
    case "email":
      // The image runs with NODE_ENV=production, where a relay is required; nothing is sent here.
      return { ...common, DATABASE_URL: roles.get(name)!.appUrl, TICKETS_URL: url("tickets"), CONTENT_URL: url("content"), SMTP_URL: "smtp://127.0.0.1:2525" };
  }
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[label] = Date.now() - started;
  }
}

async function build(image: ServiceImage): Promise<void> {
  await engine!.docker(
    ["build", "--network", "host", "--progress", "plain", "--build-arg", `${BASE_IMAGE_ARG}=${base.tag}`, "--file", `services/${image.name}/Dockerfile`, "--tag", tagOf(image.name), "."],
    { cwd: root },
  );
}

async function inspect<T>(what: string, format: string): Promise<T> {
  const result = await engine!.docker(["inspect", "--format", `{{json ${format}}}`, what]);
  return JSON.parse(result.stdout) as T;
}

async function containerLogs(name: ServiceName): Promise<string> {
  const id = containers.get(name);
  if (!id) return "";
  const logs = await engine!.docker(["logs", "--tail", "60", id], { allowFailure: true });
  return (logs.stdout + logs.stderr).slice(-4000);
}

/** Waits until the container answers 200 on path; fails early, with its logs, when it stops. */
async function waitForHttp200(name: ServiceName, path: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await httpStatus(ports.get(name)!, path);
    if (last === 200) return;
    if (!(await inspect<boolean>(containers.get(name)!, ".State.Running"))) {
      throw new Error(`${name} stopped before ${path} answered 200:\n${await containerLogs(name)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${name}: GET ${path} was still ${last} after ${timeoutMs} ms:\n${await containerLogs(name)}`);
}

/**
 * Free ports for the six (host network). Taken right before the containers start, not minutes
 * earlier: other processes on the machine take free ports too.
 */
async function assignPorts(): Promise<void> {
  for (const image of SERVICES) {
    ports.set(image.name, await freePort());
    metricsPorts.set(image.name, await freePort());
  }
}

async function startService(name: ServiceName): Promise<void> {
  const result = await engine!.docker(["run", "--detach", "--name", `support-${name}-${runId}`, ...asTheManifestsRunIt(SERVICE_MEMORY), ...envArgs(serviceEnv(name)), tagOf(name)]);
  containers.set(name, result.stdout.trim());
}

/** The admin CLI (tools/admin) against the containers' admin RPCs: `pnpm admin apply -`. */
function adminApply(tenant: object): Promise<{ apiKeys: Record<string, string>; games: Record<string, { id: string }> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, "tools/admin/src/cli.ts"), "apply", "-"], {
      cwd: root,
      env: { ...process.env, CONTENT_URL: url("content"), PLAYERS_URL: url("players"), ADMIN_TOKEN, ...identities.env("admin"), LOG_LEVEL: "warn" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`admin apply exited ${code}: ${stdout}${stderr}`))));
    child.stdin.end(JSON.stringify(tenant));
  });
}

/** V8's heap limit and NODE_OPTIONS inside a container of `image`, started with `args`. */
async function heapInContainer(image: string, args: string[], nodeArgs: string[] = []): Promise<{ limitMiB: number; nodeOptions: string | null }> {
  const script = "console.log(JSON.stringify({ limitMiB: require('node:v8').getHeapStatistics().heap_size_limit / 1048576, nodeOptions: process.env.NODE_OPTIONS ?? null }))";
  const result = await engine!.docker(["run", "--rm", ...asTheManifestsRunIt(), ...args, image, ...nodeArgs, "-e", script]);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { limitMiB: number; nodeOptions: string | null };
}

/** What node-entrypoint sets for a cgroup memory limit (its own computation, run on the host). */
function entrypointSizeFor(limitBytes: number): string {
  const cgroup = mkdtempSync(join(infraScratch(), "cgroup-"));
  writeFileSync(join(cgroup, "memory.max"), `${limitBytes}\n`);
  const result = spawnSync("sh", [join(root, ENTRYPOINT_SCRIPT), "--max-old-space-size-for", cgroup], { encoding: "utf8" });
  return result.stdout.trim();
}

let scratch: string | undefined;
function infraScratch(): string {
  // Under /tmp, not the OS temporary folder, whatever it is: the daemon's socket paths must stay short.
  scratch ??= mkdtempSync("/tmp/support-images-");
  return scratch;
}

beforeAll(async () => {
  const started = Date.now();
  infra = await createTestInfra();
  engine = await timed("start the engine", () => startDockerEngine(join(infraScratch(), "engine"), { tmpfsSize: "8g" }));
  base = await timed("local base image", () => importLocalBaseImage(engine!, versions));
  // All six at once: BuildKit builds the shared stages (tools, prune) once.
  await timed("build the six images", () => Promise.all(SERVICES.map((image) => build(image))));
  timings["set-up"] = Date.now() - started;
}, 600_000);

afterAll(async () => {
  await timed("stop the engine", async () => engine?.stop());
  await infra?.stop();
  await dropRoles(infra?.databaseUrl ?? "", [...roles.values()].flatMap((r) => [r.owner, r.app])).catch(() => undefined);
  if (scratch) spawnSync("rm", ["-rf", scratch]);
  console.log(`container image test timings (ms): ${JSON.stringify(timings)}; base root filesystem ${base === undefined ? "not reached" : base.madeRootfs ? "made by debootstrap" : "from the cache"}`);
}, 240_000);

describe("the images, built by a real engine", () => {
  it("are built from their Dockerfiles with the base image given as NODE_IMAGE, and run under tini and node-entrypoint as uid 1000", async () => {
    const baseSize = await inspect<number>(base.tag, ".Size");
    const sizes: Record<string, string> = {};
    for (const image of SERVICES) {
      const config = await inspect<{ User: string; Entrypoint: string[]; Cmd: string[]; WorkingDir: string; Env: string[] }>(tagOf(image.name), ".Config");
      expect(config.User).toBe(`${RUNTIME_UID}:${RUNTIME_UID}`);
      expect(config.Entrypoint).toEqual(entrypoint());
      expect(config.Cmd).toEqual(startCommand());
      expect(config.WorkingDir).toBe(`/app/services/${image.name}`);
      expect(config.Env).toContain("NODE_ENV=production");
      const size = await inspect<number>(tagOf(image.name), ".Size");
      sizes[image.name] = `${Math.round(size / 1e6)} MB (base + ${Math.round((size - baseSize) / 1e6)} MB)`;
    }
    console.log(`image sizes (uncompressed; the local base is ${Math.round(baseSize / 1e6)} MB): ${JSON.stringify(sizes)}`);
  });
});

describe("node-entrypoint in a container", () => {
  const image = () => tagOf("tickets");

  it("sets the heap size from a 256 MiB limit, and V8 takes it", async () => {
    const size = entrypointSizeFor(256 * 1024 * 1024);
    expect(size).toBe("64");
    const limited = await heapInContainer(image(), ["--memory", "256m"], ["node"]);
    expect(limited.nodeOptions).toBe(`--max-old-space-size=${size} --max-semi-space-size=8`);
    // The same heap limit as Node given the flags directly, and below the container's limit.
    const direct = await heapInContainer(image(), ["--memory", "256m", "--entrypoint", "node"], [`--max-old-space-size=${size}`, "--max-semi-space-size=8"]);
    expect(limited.limitMiB).toBe(direct.limitMiB);
    expect(limited.limitMiB).toBeLessThan(256);
    // Node by itself (no entrypoint) sizes its heap beyond the container's limit.
    const bare = await heapInContainer(image(), ["--memory", "256m", "--entrypoint", "node"]);
    expect(bare.limitMiB).not.toBe(limited.limitMiB);
  });

  it("adds nothing without a memory limit, and keeps a heap size that NODE_OPTIONS already sets", async () => {
    expect((await heapInContainer(image(), [], ["node"])).nodeOptions).toBeNull();
    const chosen = await heapInContainer(image(), ["--memory", "256m", "--env", "NODE_OPTIONS=--max-old-space-size=100"], ["node"]);
    expect(chosen.nodeOptions).toBe("--max-old-space-size=100 --max-semi-space-size=8");
    const direct = await heapInContainer(image(), ["--memory", "256m", "--entrypoint", "node"], ["--max-old-space-size=100", "--max-semi-space-size=8"]);
    expect(chosen.limitMiB).toBe(direct.limitMiB);
  });
});

describe("the services as containers", () => {
  // Running them twice (idempotent) is production-build.test.ts's check; here, the container form.
  it("each internal service migrates as the migrate init container runs it (the schema owner, the service's environment)", async () => {
    await assignPorts(); // the services' environment names them; the migrations do not listen
    await timed("migrations", () => Promise.all(
      INTERNAL.map(async (image) => {
        const serviceRoles = provisionServiceRoles(root, infra.databaseUrl, image.name, `t${runId}_`);
        roles.set(image.name, serviceRoles);
        // The init container's `command:` replaces the image's entrypoint.
        const [command, ...args] = migrateCommand();
        // Its environment: the service's (media reads its S3 settings) with the owner's URL.
        const env = { ...serviceEnv(image.name), DATABASE_URL: serviceRoles.migrationUrl };
        const migrate = ["run", "--rm", ...asTheManifestsRunIt(MIGRATE_MEMORY), "--entrypoint", command!, ...envArgs(env), tagOf(image.name), ...args];
        const migrated = await engine!.docker(migrate);
        expect(migrated.stdout + migrated.stderr).toMatch(/migrations applied/);
      }),
    ));
  }, 180_000);

  it("the six services start and answer /healthz and /readyz; the gateway's /healthz is 200 once they serve", async () => {
    await timed("the six services ready", async () => {
      await assignPorts();
      await Promise.all(INTERNAL.map((image) => startService(image.name)));
      await Promise.all(INTERNAL.map((image) => waitForHttp200(image.name, "/healthz")));
      await Promise.all(INTERNAL.map((image) => waitForHttp200(image.name, "/readyz")));
    });
    await timed("the gateway ready", async () => {
      await startService("gateway");
      await waitForHttp200("gateway", "/healthz", 90_000);
    });
    expect(await httpStatus(ports.get("gateway")!, "/readyz")).toBe(200);
    expect(await httpStatus(ports.get("gateway")!, "/openapi.json")).toBe(200);
    // Every container serves its metrics on its own listener.
    for (const image of SERVICES) expect(await httpStatus(metricsPorts.get(image.name)!, "/metrics"), image.name).toBe(200);
  }, 180_000);

  it("a tenant applied with the admin tool creates a ticket through the containerised gateway, read back from its events", async () => {
    const tenant = await adminApply({
      company: { name: `Container Studio ${runId}`, primaryLanguage: "en" },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${runId}`, languages: ["en"], environments: [{ ref: "galaxy-production", name: "production" }] }],
      tags: [],
      fields: [],
    });
    const key = tenant.apiKeys.main!;
    const gateway = `http://127.0.0.1:${ports.get("gateway")!}`;
    const message = `The map does not open (${runId})`;
    const created = await fetch(`${gateway}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ gameId: tenant.games.galaxy!.id, message, language: "en", channels: ["email"], metadata: { player: { id: `player-${runId}`, email: "player@example.com" } } }),
    });
    const createdBody = (await created.json()) as { ticketId: string };
    expect(created.status, JSON.stringify(createdBody)).toBe(200);
    const events = await fetch(`${gateway}/tickets/${createdBody.ticketId}/events`, { headers: { authorization: `Bearer ${key}` } });
    expect(events.status).toBe(200);
    const [first] = ((await events.json()) as { events: { type: string; content?: string; message?: string }[] }).events;
    expect(first).toMatchObject({ type: "PLAYER_MESSAGE" });
    expect(JSON.stringify(first)).toContain(message);
  }, 60_000);

  it("the containerised gateway serves the web support page at /support/ and the support application at /app/ from its image, with their CSP and assets", async () => {
    const gateway = `http://127.0.0.1:${ports.get("gateway")!}`;
    const page = await fetch(`${gateway}/support/`);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(html).toContain('<div id="app">');
    const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length, html).toBeGreaterThan(0);
    for (const asset of assets) {
      const response = await fetch(`${gateway}/support/${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get("cache-control"), asset).toBe("public, max-age=31536000, immutable");
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    const consolePage = await fetch(`${gateway}/app/sign-in`);
    const consoleHtml = await consolePage.text();
    expect(consolePage.status, consoleHtml).toBe(200);
    expect(consolePage.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self';/);
    const consoleAssets = [...consoleHtml.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(consoleAssets.length, consoleHtml).toBeGreaterThan(0);
    for (const asset of consoleAssets) expect((await fetch(`${gateway}${asset}`)).status, asset).toBe(200);
  }, 30_000);

  it("the engine runs each image's HEALTHCHECK and finds every container healthy; each runs as uid 1000 on a read-only root", async () => {
    const deadline = Date.now() + 90_000;
    const status = new Map<ServiceName, string>();
    for (;;) {
      for (const image of SERVICES) status.set(image.name, await inspect<string>(containers.get(image.name)!, ".State.Health.Status"));
      if ([...status.values()].every((s) => s === "healthy") || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(Object.fromEntries(status)).toEqual(Object.fromEntries(SERVICES.map((image) => [image.name, "healthy"])));
    for (const image of SERVICES) {
      const id = containers.get(image.name)!;
      const pid = await inspect<number>(id, ".State.Pid");
      expect(Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])).toBe(RUNTIME_UID);
      const write = await engine!.docker(["exec", id, "sh", "-c", "touch /app/written 2>&1; echo $?; touch /tmp/written && echo tmp-ok"], { allowFailure: true });
      expect(write.stdout).toMatch(/Read-only file system/);
      expect(write.stdout).toContain("tmp-ok");
    }
  }, 120_000);

  it("every container stops with exit code 0 on docker stop (SIGTERM through tini and the entrypoint)", async () => {
    const codes = await Promise.all(
      SERVICES.map(async (image) => {
        const id = containers.get(image.name)!;
        await engine!.docker(["stop", "--time", "30", id]);
        const code = await inspect<number>(id, ".State.ExitCode");
        // A non-zero exit names its cause in the service's last log lines: kept for the failure's message.
        const output = code === 0 ? undefined : await engine!.docker(["logs", "--tail", "20", id], { allowFailure: true });
        const logs = output ? output.stdout + output.stderr : "";
        return [image.name, code, logs] as const;
      }),
    );
    const failed = codes.filter(([, code]) => code !== 0).map(([name, code, logs]) => `${name} exited ${code}:\n${logs}`).join("\n");
    expect(Object.fromEntries(codes.map(([name, code]) => [name, code])), failed).toEqual(Object.fromEntries(SERVICES.map((image) => [image.name, 0])));
  }, 60_000);
});
