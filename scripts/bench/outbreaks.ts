// `pnpm bench outbreaks`: outbreak detection (docs/automation.md, "Outbreaks"), in two parts.
// Quality, in-process on the triage corpus (libs/triage/corpus, 12,000 generated tickets in nine
// languages; the text is the first message, as detection reads it): the similarity of two tickets
// stating the same problem (the same phrase of the generator, other greetings, details, devices,
// typos), of two tickets of one tag but another problem, and of two of other tags, at each
// threshold; and how many incidents would open on the corpus, which has no outbreak (every one is
// a false merge), streaming each game's tickets with a window of 100 or 300 tickets and
// N = 10. Also the CPU of one decision against 300 recent tickets, in this process.
// Cost, on the whole stack as processes: corpus tickets created one after another through the
// API for one company with detection off, then on (the window filling up to its 300 recent
// tickets), then off again; CPU of every process and of the bench database's Postgres backends
// per ticket from /proc, less what each spends idle, as `pnpm bench routing` does. Target (issue
// 27): automation adds at most 1 ms of CPU per ticket creation.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { readCorpusFile } from "../../libs/triage/corpus/generate.ts";
import { PHRASES } from "../../libs/triage/corpus/phrases.ts";
import { decide, outbreakVector, RECENT_LIMIT, similarity, type RecentTicket } from "../../services/tickets/src/outbreaks/outbreaks.ts";
import { SETTINGS_TTL_MS } from "../../services/tickets/src/outbreaks/outbreaks.service.ts";
import { cpuMeter, idleCorrectedMeter } from "./cpu.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { progress, runDirectory, startStack } from "./stack.ts";

const TICKETS = Number(process.env.BENCH_OUTBREAK_TICKETS ?? 400);
const PASSWORD = "a quiet harbour at dawn, 2026";
const TARGET_MICROS = 1000;
const THRESHOLDS = [0.4, 0.5, 0.55, 0.6, 0.65, 0.7];
/** The processes detection runs in: what the target counts. */
const DETECTION_PROCESSES = ["tickets", "postgres"];

interface Probe {
  game: string;
  text: string;
  label: string;
  /** Which generator phrase states the problem (language, tag, index); null when typos hide it. */
  problem: string | null;
  vector: ReturnType<typeof outbreakVector>;
}

function probes(): Probe[] {
  return readCorpusFile().map((ticket) => {
    const text = ticket.messages[0] ?? "";
    const lower = text.toLowerCase();
    let problem: string | null = null;
    for (const [label, phrases] of Object.entries(PHRASES[ticket.language]?.problems ?? {})) {
      phrases.forEach((phrase, index) => {
        const literal = phrase.split("{")[0]!.toLowerCase();
        if (literal.length >= 10 && lower.includes(literal)) problem = `${ticket.language}:${label}:${index}`;
      });
    }
    return { game: ticket.gameId, text, label: ticket.tags?.[0] ?? "none", problem, vector: outbreakVector(text) };
  });
}

function quality(all: Probe[]): { table: string; details: Record<string, unknown> } {
  const kinds = { "same problem": [] as number[], "same tag, other problem": [] as number[], "other tag": [] as number[] };
  // Each ticket against the next 200 (pairs as they meet in a window).
  for (let i = 0; i < 4000; i++) {
    for (let j = i + 1; j < Math.min(4000, i + 200); j++) {
      const a = all[i]!;
      const b = all[j]!;
      if (!a.problem || !b.problem) continue;
      const s = similarity(a.vector, b.vector);
      (a.problem === b.problem ? kinds["same problem"] : a.label === b.label ? kinds["same tag, other problem"] : kinds["other tag"]).push(s);
    }
  }
  const share = (list: number[], threshold: number) => `${((list.filter((s) => s >= threshold).length / list.length) * 100).toFixed(2)} %`;
  const falseIncidents = (window: number, threshold: number) => {
    let opened = 0;
    for (const game of new Set(all.map((probe) => probe.game))) {
      let recent: RecentTicket[] = [];
      for (const [index, probe] of all.entries()) {
        if (probe.game !== game) continue;
        const decision = decide(probe.vector, [], recent, { minTickets: 10, similarity: threshold });
        if (decision.kind === "open") {
          opened += 1;
          recent = recent.filter((ticket) => !decision.ticketIds.includes(ticket.ticketId));
          continue;
        }
        recent.unshift({ ticketId: String(index), vector: probe.vector });
        recent = recent.slice(0, window);
      }
    }
    return opened;
  };
  const rows = THRESHOLDS.map((threshold) => {
    const cells = Object.values(kinds).map((list) => share(list, threshold));
    return `| ${threshold} | ${cells.join(" | ")} | ${falseIncidents(100, threshold)} | ${falseIncidents(300, threshold)} |`;
  });
  const table = [
    `Pairs at or above the similarity (${Object.entries(kinds).map(([kind, list]) => `${kind}: ${list.length}`).join(", ")} pairs), and incidents opened on the ${all.length} corpus tickets (no outbreak in it: every one is false) with N = 10:`,
    "",
    `| similarity | same problem | same tag, other problem | other tag | false incidents, 100 tickets in the window | 300 in the window |`,
    `|---|---|---|---|---|---|`,
    ...rows,
  ].join("\n");
  return { table, details: { pairs: Object.fromEntries(Object.entries(kinds).map(([kind, list]) => [kind, list.length])) } };
}

/** CPU µs of one decision against RECENT_LIMIT recent tickets (p50, p99), the vector of the new ticket included. */
function decisionMicros(all: Probe[]): { p50: number; p99: number } {
  const recent = all.slice(0, RECENT_LIMIT).map((probe, index) => ({ ticketId: String(index), vector: probe.vector }));
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const probe of all.slice(RECENT_LIMIT, RECENT_LIMIT + 2000)) {
      const started = process.cpuUsage();
      decide(outbreakVector(probe.text), [], recent, { minTickets: 10_000, similarity: 0.6 });
      const used = process.cpuUsage(started);
      if (round > 0) samples.push(used.user + used.system);
    }
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)]!, p99: samples[Math.floor(samples.length * 0.99)]! };
}

export async function outbreaksSuite(): Promise<SuiteResult> {
  const all = probes();
  const measured = quality(all);
  const inProcess = decisionMicros(all);
  progress(`outbreaks: one decision against ${RECENT_LIMIT} recent tickets, p50 ${inProcess.p50} µs, p99 ${inProcess.p99} µs of CPU`);

  const stack = await startStack();
  const suffix = randomUUID().slice(0, 8);
  const email = `admin-${suffix}@bench.example`;
  const file = path.join(runDirectory(), "outbreaks-tenant.json");
  writeFileSync(
    file,
    JSON.stringify({
      company: { name: `Outbreaks bench ${suffix}` },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "game", name: "Game", slug: `game-${suffix}`, languages: ["en"], environments: [{ ref: "game-prod", name: "production" }] }],
      users: [{ ref: "admin", name: "Admin", email, role: "admin" }],
    }),
  );
  const tenant = await stack.applyTenant(file);
  const key = Object.values(tenant.apiKeys)[0]!;
  const gameId = tenant.games.game!.id;
  const origin = new URL(stack.gateway).origin;
  await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  const signedIn = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
  const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
  if (!cookie) throw new Error(`sign-in answered ${signedIn.status}`);
  const { csrfToken } = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
  const setEnabled = async (enabled: boolean) => {
    const response = await fetch(`${stack.gateway}/agent-api/settings/outbreaks`, {
      method: "PUT",
      headers: { cookie, origin, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: JSON.stringify({ enabled, minTickets: 10, windowMinutes: 30, similarity: 0.6 }),
    });
    if (response.status !== 200) throw new Error(`PUT /agent-api/settings/outbreaks answered ${response.status}`);
    // Each replica reads a company's settings again after SETTINGS_TTL_MS.
    await new Promise((resolve) => setTimeout(resolve, SETTINGS_TTL_MS + 1000));
  };

  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const meter = cpuMeter(() => stack.processes.map(({ name, child }) => ({ name, pid: child.pid! })), admin, new URL(stack.databaseUrl).pathname.slice(1));
  let next = 0;

  async function createTickets(): Promise<void> {
    for (let i = 0; i < TICKETS; i += 1) {
      const probe = all[next++ % all.length]!;
      const response = await fetch(`${stack.gateway}/tickets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          gameId, message: probe.text || "Help", language: "en", channels: ["email"],
          metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } },
        }),
      });
      if (response.status !== 200) throw new Error(`POST /tickets answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  }

  /** Waits until detection has decided every ticket of an "on" batch, then for the consumers to finish. */
  async function settled(expectedVectors: number): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await db.query<{ n: string }>("select count(*) as n from tickets.outbreak_vectors where game_id = $1", [gameId]);
      if (Number(rows[0]!.n) >= expectedVectors) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} of ${expectedVectors} tickets decided`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }

  const cpu = idleCorrectedMeter(meter);
  async function batch(name: string, expectedVectors: number): Promise<Record<string, number>> {
    progress(`${TICKETS} tickets, detection ${name}`);
    return cpu.perUnit(TICKETS, async () => {
      await createTickets();
      await settled(expectedVectors);
    });
  }

  // A warm-up batch, not counted.
  await createTickets();
  await settled(0);
  await cpu.measureIdle(10);
  const first = await batch("off", 0);
  await setEnabled(true);
  const on = await batch("on", TICKETS);
  await setEnabled(false);
  const last = await batch("off again", 0);
  const incidents = Number((await db.query<{ n: string }>("select count(*) as n from tickets.incidents where game_id = $1", [gameId])).rows[0]!.n);
  await db.end();
  await admin.end();

  const names = [...new Set([...Object.keys(first), ...Object.keys(on), ...Object.keys(last)])].filter((name) => name !== "client").sort();
  const off = (name: string) => ((first[name] ?? 0) + (last[name] ?? 0)) / 2;
  const added = (name: string) => Math.round((on[name] ?? 0) - off(name));
  const detection = DETECTION_PROCESSES.reduce((total, name) => total + added(name), 0);
  const rows: Row[] = [];
  const table = [
    measured.table,
    "",
    `One decision in process (the new ticket's vector, ${RECENT_LIMIT} recent tickets compared): p50 ${inProcess.p50} µs, p99 ${inProcess.p99} µs of CPU.`,
    "",
    `| process | CPU µs/ticket, detection off | on | off again | added |`,
    `|---|---|---|---|---|`,
    ...names.map((name) => `| ${name} | ${first[name] ?? "-"} | ${on[name] ?? "-"} | ${last[name] ?? "-"} | ${added(name)} |`),
    `| **tickets + postgres** | | | | **${detection}** (target ≤ ${TARGET_MICROS}) |`,
    "",
    `Incidents opened on the ${TICKETS} corpus tickets of the "on" batch: ${incidents}.`,
  ].join("\n");
  const result: SuiteResult = { rows, table, details: { tickets: TICKETS, idlePerSecond: cpu.idlePerSecond, perTicket: { off: first, on, offAgain: last }, detectionMicrosPerTicket: detection, decision: inProcess, incidents, ...measured.details } };
  if (detection > TARGET_MICROS) throw Object.assign(new Error(`detection costs ${detection} µs of CPU per ticket, more than ${TARGET_MICROS}`), { result });
  return result;
}
