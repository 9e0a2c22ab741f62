// Checks by hand against the local stack of `make up` (gateway on :8080, services on
// :50051-50054, demo tenant in .data/demo-tenant.json), using the fault suite's load and
// keep-alive clients. docs/operations.md ("Checked by hand") records the runs.
//   pnpm exec node scripts/bench/replay.ts kill <content|tickets|media|players>  SIGKILL of one service under load
//   pnpm exec node scripts/bench/replay.ts stop-gateway                          SIGTERM of the gateway under 32 keep-alive connections
//   pnpm exec node scripts/bench/replay.ts gzip                                  a corrupt gzip body
//   pnpm exec node scripts/bench/replay.ts restart "<shell command>"             a dependency restarted under load
//     e.g. `restart "pg_ctl -D /tmp/pg restart -m fast"` with `make up` started with DATABASE_URL
//     (and NATS_URL) pointing at a server of your own: never restart a server others use.
// Each prints its findings as JSON and exits 1 when a client saw something outside the contract.
import { execFileSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import path from "node:path";
import { keepAliveLoad, type KeepAliveRequest } from "../../tests/faults/src/keepalive.ts";
import { errorBodyProblem, runLoad } from "../../tests/faults/src/load.ts";

const root = path.resolve(import.meta.dirname, "../..");
const GATEWAY_PORT = Number(process.env.PORT ?? 8080);
const gateway = `http://127.0.0.1:${GATEWAY_PORT}`;
const PORTS: Record<string, number> = { content: 50051, tickets: 50052, media: 50053, players: 50054, gateway: GATEWAY_PORT };

interface DemoTenant {
  companyId: string;
  apiKeys: Record<string, string>;
  games: Record<string, { id: string }>;
}
const tenant = (JSON.parse(readFileSync(path.join(root, ".data/demo-tenant.json"), "utf8")) as { tenant: DemoTenant }).tenant;
const key = Object.values(tenant.apiKeys)[0]!;
const gameId = tenant.games.galaxy!.id;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => console.error(`[replay ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** The pid listening on the port (the service make up started), from `ss`. */
function pidOn(port: number): number {
  const out = execFileSync("ss", ["-Hltnp", `sport = :${port}`], { encoding: "utf8" });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (!pid) throw new Error(`nothing listens on :${port}`);
  return Number(pid);
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
}
const ready = () => fetch(`${gateway}/readyz`).then((r) => r.ok);

async function killService(service: string): Promise<boolean> {
  const port = PORTS[service];
  if (!port || service === "gateway") throw new Error(`kill: one of content, tickets, media, players`);
  await waitUntil("gateway ready", ready);
  let faultOver!: () => void;
  const until = new Promise<void>((resolve) => (faultOver = resolve));
  const load = runLoad({ gateway, key, companyId: tenant.companyId, gameId }, { clients: 8, minCreates: 200, until, actionEvery: 2 });
  await sleep(3_000);
  const pid = pidOn(port);
  log(`SIGKILL ${service} (pid ${pid})`);
  process.kill(pid, "SIGKILL");
  await waitUntil(`${service} listening again`, async () => pidOn(port) !== pid);
  log(`${service} is back (pid ${pidOn(port)})`);
  await waitUntil("gateway ready", ready);
  await sleep(3_000);
  faultOver();
  const result = await load;
  console.log(JSON.stringify({ scenario: `kill -9 ${service}`, attempts: result.attempts, statuses: result.statuses, closed: result.closed.length, violations: result.violations.slice(0, 10) }, null, 2));
  return result.violations.length === 0 && result.closed.length === 0;
}

/**
 * Runs `command` (a restart of Postgres or NATS) under the same load as `kill`, then checks that
 * no service process exited (same pids before and after) and that clients only saw 2xx or the
 * error body of 503/504.
 */
async function restartDependency(command: string): Promise<boolean> {
  if (!command) throw new Error('restart: give the command, e.g. restart "pg_ctl -D /tmp/pg restart -m fast"');
  await waitUntil("gateway ready", ready);
  const pidsBefore = Object.fromEntries(Object.entries(PORTS).map(([name, port]) => [name, pidOn(port)]));
  let faultOver!: () => void;
  const until = new Promise<void>((resolve) => (faultOver = resolve));
  const load = runLoad({ gateway, key, companyId: tenant.companyId, gameId }, { clients: 8, minCreates: 200, until, actionEvery: 2 });
  await sleep(3_000);
  log(`running: ${command}`);
  execFileSync("sh", ["-c", command], { stdio: "inherit" });
  log("command done; waiting for the gateway to answer again");
  await waitUntil("gateway ready", ready);
  await sleep(5_000);
  faultOver();
  const result = await load;
  const pidsAfter = Object.fromEntries(Object.entries(PORTS).map(([name, port]) => [name, pidOn(port)]));
  const exited = Object.keys(PORTS).filter((name) => pidsBefore[name] !== pidsAfter[name]);
  console.log(JSON.stringify({ scenario: `restart: ${command}`, attempts: result.attempts, statuses: result.statuses, closed: result.closed.length, exited, violations: result.violations.slice(0, 10) }, null, 2));
  return result.violations.length === 0 && result.closed.length === 0 && exited.length === 0;
}

async function stopGateway(): Promise<boolean> {
  await waitUntil("gateway ready", ready);
  let n = 0;
  const load = keepAliveLoad(GATEWAY_PORT, 32, (): KeepAliveRequest => {
    n++;
    return n % 4 === 0
      ? {
          name: "POST /tickets",
          method: "POST",
          path: "/tickets",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ gameId, message: `Replay ${Date.now()}-${n}: my purchase did not arrive`, language: "en", channels: ["email"], metadata: { player: { id: `replay-${Date.now()}-${n}`, email: `replay-${n}@example.com` } } }),
        }
      : { name: "GET /games", method: "GET", path: "/games", headers: { authorization: `Bearer ${key}` } };
  });
  await load.opened;
  await sleep(2_000);
  const pid = pidOn(GATEWAY_PORT);
  const before = load.result.answers.length;
  log(`SIGTERM gateway (pid ${pid}) with 32 busy keep-alive connections, ${before} answers so far`);
  process.kill(pid, "SIGTERM");
  const result = await load.done;
  const statuses: Record<string, number> = {};
  for (const answer of result.answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const bad = result.answers.filter((a) => (a.status < 200 || a.status > 299) && errorBodyProblem(a.status, a.body) !== undefined);
  log("waiting for make up to start the gateway again");
  await waitUntil("gateway ready again", ready);
  console.log(
    JSON.stringify(
      {
        scenario: "SIGTERM gateway, 32 keep-alive connections",
        answers: result.answers.length,
        answersAfterSignal: result.answers.length - before,
        statuses,
        withConnectionClose: result.answers.filter((a) => a.headers.connection?.toLowerCase() === "close").length,
        cut: result.cut,
        closedBeforeAnswer: result.closedBeforeAnswer,
        refused: result.refused,
        badErrorBodies: bad.slice(0, 5).map((a) => `${a.request} ${a.status} ${a.body.slice(0, 200)}`),
      },
      null,
      2,
    ),
  );
  return result.cut.length === 0 && bad.length === 0;
}

async function corruptGzip(): Promise<boolean> {
  const valid = gzipSync(JSON.stringify({ gameId, message: "x" }));
  const corrupt = Buffer.concat([valid.subarray(0, 10), Buffer.from("definitely not deflate data")]);
  const answers = [];
  for (const [name, body] of [["corrupt gzip", corrupt], ["plain text labelled gzip", Buffer.from("{\"gameId\":1}")]] as const) {
    const response = await fetch(`${gateway}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-encoding": "gzip" },
      body,
    });
    answers.push({ name, status: response.status, body: await response.text() });
  }
  console.log(JSON.stringify({ scenario: "corrupt gzip body", answers }, null, 2));
  return answers.every((a) => a.status === 400 && (JSON.parse(a.body) as { code?: string }).code === "invalid_argument");
}

const [scenario, argument] = process.argv.slice(2);
const scenarios: Record<string, () => Promise<boolean>> = {
  kill: () => killService(argument ?? "tickets"),
  "stop-gateway": stopGateway,
  gzip: corruptGzip,
  restart: () => restartDependency(argument ?? ""),
};
const run = scenarios[scenario ?? ""];
if (!run) {
  console.error(`usage: pnpm exec node scripts/bench/replay.ts kill <service> | stop-gateway | gzip | restart \"<command>\"`);
  process.exit(2);
}
process.exit((await run()) ? 0 : 1);
