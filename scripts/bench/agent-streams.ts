// `pnpm bench agent-streams`: the agents' live streams at scale on ONE gateway. AGENT_STREAMS
// (default 1,000) streams of GET /agent-api/stream are opened by signed-in agents; then, one
// after another, AGENT_STREAM_ACTIONS (default 40) private notes are added to a ticket through
// the agent API, and each note's change is awaited on every stream. Measured: the time from
// sending each action to its arrival on each stream (p50, p95, p99, max over every pair), and
// the gateway's memory per open stream (its RSS and V8 heap in use, before and with the streams
// open, divided by their number). As deployed: production log level into files, metrics on.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Row, SuiteResult } from "./measure.ts";
import { progress, runDirectory, startStack } from "./stack.ts";

const STREAMS = Number(process.env.AGENT_STREAMS ?? 1000);
const ACTIONS = Number(process.env.AGENT_STREAM_ACTIONS ?? 40);
/** Agents the streams are spread over (a console tab per stream). */
const AGENTS = Number(process.env.AGENT_STREAM_AGENTS ?? 20);
const PASSWORD = "a bench password, long enough 2026";
const MB = 1024 * 1024;

interface OpenStream {
  /** When each note (by its order) arrived. */
  arrivals: number[];
  close(): void;
}

function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return kb ? Number(kb[1]) * 1024 : NaN;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function openStream(gateway: string, cookie: string): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${gateway}/agent-api/stream`, { headers: { cookie }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`GET /agent-api/stream answered ${response.status}: ${await response.text()}`);
  const stream: OpenStream = { arrivals: [], close: () => controller.abort() };
  void (async () => {
    let buffer = "";
    try {
      for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.includes("event: ticket") && block.includes('"messageType":"PRIVATE_NOTE"')) stream.arrivals.push(performance.now());
        }
      }
    } catch {
      // closed by the bench
    }
  })();
  return stream;
}

export async function agentStreamsSuite(): Promise<SuiteResult> {
  const stack = await startStack({ AGENT_STREAMS_PER_USER: String(Math.ceil(STREAMS / AGENTS) + 1), AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: "0" });
  const suffix = Date.now().toString(36);
  const tenantFile = path.join(runDirectory(), "agent-streams-tenant.json");
  const emails = Array.from({ length: AGENTS }, (_, i) => `agent-${i}-${suffix}@bench.example`);
  writeFileSync(
    tenantFile,
    JSON.stringify({
      company: { name: "Bench Streams Studio" },
      apiKeys: [{ name: "bench" }],
      games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
      users: emails.map((email, i) => ({ ref: `agent${i}`, name: `Agent ${i}`, email, role: "agent", games: ["galaxy"] })),
    }),
  );
  const tenant = await stack.applyTenant(tenantFile);
  for (const email of emails) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  const origin = new URL(stack.gateway).origin;
  const agents: { cookie: string; csrfToken: string }[] = [];
  for (const email of emails) {
    const signIn = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
    const cookie = /^(support_session=[^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1];
    if (!cookie) throw new Error(`sign-in answered ${signIn.status}`);
    const me = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
    agents.push({ cookie, csrfToken: me.csrfToken });
  }
  const created = await fetch(`${stack.gateway}/tickets`, {
    method: "POST",
    headers: { authorization: `Bearer ${Object.values(tenant.apiKeys)[0]!}`, "content-type": "application/json" },
    body: JSON.stringify({ gameId: tenant.games.galaxy!.id, message: "A ticket every agent watches", language: "en", channels: ["email"], metadata: { player: { id: "bench-player", email: "bench@example.com" } } }),
  });
  const { ticketId } = (await created.json()) as { ticketId: string };

  const gateway = stack.processes.find((p) => p.name === "gateway")!.child;
  const heapNow = async () => {
    const text = await (await fetch(`http://127.0.0.1:${stack.metricsPorts.gateway}/metrics`)).text();
    return Number(/^nodejs_heap_size_used_bytes (\d+(\.\d+)?)/m.exec(text)?.[1] ?? NaN);
  };
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const rssBefore = rssOf(gateway.pid!);
  const heapBefore = await heapNow();
  progress(`opening ${STREAMS} agent streams over ${AGENTS} agents`);
  const streams: OpenStream[] = [];
  for (let i = 0; i < STREAMS; i++) streams.push(await openStream(stack.gateway, agents[i % AGENTS]!.cookie));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const rssOpen = rssOf(gateway.pid!);
  const heapOpen = await heapNow();

  progress(`${ACTIONS} notes, each awaited on every stream`);
  const latencies: number[] = [];
  const actor = agents[0]!;
  for (let i = 0; i < ACTIONS; i++) {
    const sentAt = performance.now();
    const answer = await fetch(`${stack.gateway}/agent-api/tickets/${ticketId}/actions`, {
      method: "POST",
      headers: { cookie: actor.cookie, origin, "x-csrf-token": actor.csrfToken, "content-type": "application/json" },
      body: JSON.stringify({ actions: [{ type: "addPrivateNote", message: `note ${i}` }] }),
    });
    if (answer.status !== 200) throw new Error(`the action answered ${answer.status}: ${await answer.text()}`);
    const deadline = Date.now() + 30_000;
    while (streams.some((stream) => stream.arrivals.length <= i) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const missing = streams.filter((stream) => stream.arrivals.length <= i).length;
    if (missing > 0) throw new Error(`note ${i} did not reach ${missing} of ${STREAMS} streams in 30 s`);
    for (const stream of streams) latencies.push(stream.arrivals[i]! - sentAt);
  }
  for (const stream of streams) stream.close();

  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  const row: Row = {
    name: `an action to ${STREAMS} agent streams`,
    connections: STREAMS,
    requestsPerSecond: NaN,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    mean: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
    errors: 0,
    non2xx: 0,
    p95: round(percentile(latencies, 95)),
    max: round(latencies.at(-1)!),
    samples: latencies.length,
    rssPerStreamKb: round((rssOpen - rssBefore) / STREAMS / 1024),
    heapPerStreamKb: round((heapOpen - heapBefore) / STREAMS / 1024),
    rssBeforeMb: round(rssBefore / MB),
    rssOpenMb: round(rssOpen / MB),
  };
  const table = [
    "| streams | actions | samples | p50 ms | p95 ms | p99 ms | max ms | gateway RSS before → open (MB) | RSS per stream (KB) | heap per stream (KB) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    `| ${STREAMS} | ${ACTIONS} | ${latencies.length} | ${row.p50} | ${row.p95} | ${row.p99} | ${row.max} | ${row.rssBeforeMb} → ${row.rssOpenMb} | ${row.rssPerStreamKb} | ${row.heapPerStreamKb} |`,
  ].join("\n");
  return { rows: [row], table, details: { targets: { p99Ms: 500 } } };
}
