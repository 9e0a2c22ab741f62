// `pnpm bench [reference]`: throughput and latency of the request path, each layer measured in
// the same run so the ratios mean something on whatever machine runs it. Not a test: numbers go
// to stdout and to scripts/bench/results/<suite>.json; docs/performance.md records them.
import { fork, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";

const root = path.resolve(import.meta.dirname, "../..");
const here = import.meta.dirname;
const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const children: ChildProcess[] = [];

interface Row {
  name: string;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function start(script: string, env: Record<string, string>, quiet = true): ChildProcess {
  const child = fork(script, [], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: quiet ? ["ignore", "ignore", "inherit", "ipc"] : ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(child);
  return child;
}

async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in time`);
}

async function runOnce(name: string, url: string, connections: number, headers: Record<string, string> = {}): Promise<Row> {
  // A short warm-up lets JIT and caches settle before the measured run.
  await autocannon({ url, connections, duration: 2, headers });
  const result = await autocannon({ url, connections, duration: durationSeconds, headers });
  const row = {
    name,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
  console.error(`${name} c=${connections}: ${row.requestsPerSecond} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors} non2xx ${row.non2xx}`);
  return row;
}

async function runProcess(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit", "ipc"] });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited with ${code}`))));
  });
}

async function referenceSuite(): Promise<Row[]> {
  const rows: Row[] = [];

  const helloPort = await freePort();
  start(path.join(here, "koa-hello.ts"), { PORT: String(helloPort) });
  await waitForHttp(`http://127.0.0.1:${helloPort}/`);

  const echoPort = await freePort();
  const viaPort = await freePort();
  start(path.join(here, "echo-server.ts"), { PORT: String(echoPort) });
  await waitForHttp(`http://127.0.0.1:${echoPort}/healthz`);
  start(path.join(here, "koa-echo.ts"), { PORT: String(viaPort), ECHO_URL: `http://127.0.0.1:${echoPort}` });
  await waitForHttp(`http://127.0.0.1:${viaPort}/`);

  // The whole stack in a database and NATS prefix of its own.
  const run = randomBytes(4).toString("hex");
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseUrl = adminUrl.replace(/\/[^/]*$/, `/bench_${run}`);
  const ports = { content: await freePort(), tickets: await freePort(), media: await freePort(), players: await freePort(), gateway: await freePort() };
  const common = { DATABASE_URL: databaseUrl, NATS_URL: process.env.NATS_URL ?? "nats://127.0.0.1:4222", NATS_PREFIX: `bench_${run}_`, HOST: "127.0.0.1" };
  for (const service of ["content", "tickets", "media", "players"] as const) {
    await runProcess(path.join(root, `services/${service}/src/migrate.ts`), [], common);
    start(path.join(root, `services/${service}/src/main.ts`), { ...common, PORT: String(ports[service]) });
  }
  start(path.join(root, "services/gateway/src/main.ts"), {
    ...common,
    PORT: String(ports.gateway),
    CONTENT_URL: `http://127.0.0.1:${ports.content}`,
    TICKETS_URL: `http://127.0.0.1:${ports.tickets}`,
    MEDIA_URL: `http://127.0.0.1:${ports.media}`,
    PLAYERS_URL: `http://127.0.0.1:${ports.players}`,
  });
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  await waitForHttp(`${gateway}/healthz`, 60_000);
  const tenant = JSON.parse(
    await runProcess(path.join(root, "services/content/src/admin/cli.ts"), ["apply", path.join(root, "scripts/demo-tenant.json")], common),
  ) as { apiKeys: Record<string, string> };
  const key = Object.values(tenant.apiKeys)[0]!;
  const auth = { authorization: `Bearer ${key}` };

  try {
    for (const connections of [1, 32]) {
      rows.push(await runOnce("bare Koa hello", `http://127.0.0.1:${helloPort}/`, connections));
      rows.push(await runOnce("Koa -> one Connect RPC", `http://127.0.0.1:${viaPort}/`, connections));
      rows.push(await runOnce("GET /games (stack)", `${gateway}/games`, connections, auth));
      rows.push(await runOnce("GET /announcements (stack)", `${gateway}/announcements`, connections, auth));
    }
  } finally {
    stopAll();
    await new Promise((r) => setTimeout(r, 1500));
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists bench_${run} with (force)`);
    await admin.end();
  }
  return rows;
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
}

function report(suite: string, rows: Row[]): void {
  const bare = new Map(rows.filter((r) => r.name === "bare Koa hello").map((r) => [r.connections, r.requestsPerSecond]));
  const lines = [
    `| path | connections | req/s | p50 ms | p99 ms | x bare Koa | errors |`,
    `|---|---|---|---|---|---|---|`,
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.connections} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / (bare.get(r.connections) ?? NaN)).toFixed(2)} | ${r.errors + r.non2xx} |`,
    ),
  ];
  console.log(lines.join("\n"));
  mkdirSync(path.join(here, "results"), { recursive: true });
  writeFileSync(path.join(here, "results", `${suite}.json`), JSON.stringify({ at: new Date().toISOString(), durationSeconds, rows }, null, 2));
}

process.on("SIGINT", () => {
  stopAll();
  process.exit(130);
});

const suite = process.argv[2] ?? "reference";
const suites: Record<string, () => Promise<Row[]>> = { reference: referenceSuite };
const runSuite = suites[suite];
if (!runSuite) {
  console.error(`Unknown suite ${suite}; known: ${Object.keys(suites).join(", ")}`);
  process.exit(2);
}
try {
  report(suite, await runSuite());
} catch (error) {
  stopAll();
  console.error(error);
  process.exit(1);
}
