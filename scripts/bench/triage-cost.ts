// `pnpm bench triage-cost`: what the triage of the AI flags costs per ticket creation in the
// running system (docs/automation.md), next to `pnpm bench triage` (the classifier alone, in
// process). The whole stack as processes; three companies with the same AI tags (bug, payment)
// and AI field (category): "plain" (no model: the triage's consumer reads the model's time and
// stops), "suggesting" (a model trained on 56 tickets its admin labelled and resolved, threshold
// 100 %: every prediction is stored as a suggestion, nothing set) and "setting" (the same,
// threshold 50 %: a tag and the category set on every ticket, with their events). Tickets are
// created one after another in batches (plain, suggesting, setting, plain again to see drift),
// each waited for until every ticket is classified and the events are handled. CPU of every
// process and of the bench database's Postgres backends per ticket, from /proc, less each
// process's idle CPU. Target (issue 27): automation adds at most 1 ms of CPU per ticket creation.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { cpuMeter, idleCorrectedMeter } from "./cpu.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { progress, runDirectory, startStack, type TenantResult } from "./stack.ts";

type Company = "plain" | "suggesting" | "setting";

const TICKETS = Number(process.env.BENCH_TRIAGE_TICKETS ?? 300);
const PASSWORD = "a quiet harbour at dawn, 2026";
const TARGET_MICROS = 1000;
/** The processes the triage runs in or writes to: what the target counts. */
const TRIAGE_PROCESSES = ["tickets", "postgres"];
const BUG = ["The game crashes when I open the map", "Game keeps crashing at the loading screen", "Crash after the update on startup", "It froze and crashed during the boss fight"];
const PAYMENT = ["I was charged twice for the gem pack", "My purchase of coins did not arrive", "Payment went through but no gems", "Refund please, I bought the wrong bundle"];

export async function triageCostSuite(): Promise<SuiteResult> {
  const stack = await startStack();
  const origin = new URL(stack.gateway).origin;
  const companies = {} as Record<Company, { tenant: TenantResult; key: string; cookie: string; csrfToken: string }>;

  async function agentCall(company: Company, method: string, url: string, body?: unknown): Promise<unknown> {
    const { cookie, csrfToken } = companies[company];
    const response = await fetch(`${stack.gateway}${url}`, {
      method, headers: { cookie, origin, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  }

  async function createTicket(company: Company, message: string): Promise<string> {
    const { tenant, key } = companies[company];
    const response = await fetch(`${stack.gateway}/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        gameId: Object.values(tenant.games)[0]!.id, message, language: "en", channels: ["email"],
        metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } },
      }),
    });
    if (response.status !== 200) throw new Error(`POST /tickets answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { ticketId: string }).ticketId;
  }

  for (const company of ["plain", "suggesting", "setting"] as const) {
    const suffix = randomUUID().slice(0, 8);
    const email = `admin-${suffix}@bench.example`;
    const file = path.join(runDirectory(), `triage-${company}-tenant.json`);
    writeFileSync(file, JSON.stringify({
      company: { name: `Triage bench ${company} ${suffix}` },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "game", name: "Game", slug: `game-${suffix}`, languages: ["en"], environments: [{ ref: "game-prod", name: "production" }] }],
      tags: [{ name: "bug", game: null, isAiTag: true }, { name: "payment", game: null, isAiTag: true }],
      fields: [{ key: "category", name: "Category", type: "dropdown", game: null, options: ["technical", "billing", "other"], isAiField: true }],
      users: [{ ref: "admin", name: "Admin", email, role: "admin" }],
    }));
    const tenant = await stack.applyTenant(file);
    await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    const signedIn = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
    if (!cookie) throw new Error(`sign-in of ${email} answered ${signedIn.status}`);
    const { csrfToken } = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
    companies[company] = { tenant, key: Object.values(tenant.apiKeys)[0]!, cookie, csrfToken };
    if (company === "plain") continue;
    progress(`the ${company} company's history: 56 labelled tickets`);
    for (let i = 0; i < 56; i += 1) {
      const bug = i % 2 === 0;
      const ticketId = await createTicket(company, (bug ? BUG : PAYMENT)[Math.floor(i / 2) % 4]! + (i % 3 === 0 ? " please help" : ""));
      await agentCall(company, "POST", `/agent-api/tickets/${ticketId}/actions`, {
        actions: [{ type: "addTags", tagNames: [bug ? "bug" : "payment"] }, { type: "setFields", fields: { category: bug ? "technical" : "billing" } }, { type: "resolveTicket" }],
      });
    }
    await agentCall(company, "POST", "/agent-api/settings/triage/train");
    await agentCall(company, "PATCH", "/agent-api/settings/triage", { threshold: company === "setting" ? 0.5 : 1 });
  }

  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const meter = cpuMeter(() => stack.processes.map(({ name, child }) => ({ name, pid: child.pid! })), admin, new URL(stack.databaseUrl).pathname.slice(1));

  async function createTickets(company: Company): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < TICKETS; i += 1) {
      // The history's wordings with a word of its own: what a model meets in practice.
      ids.push(await createTicket(company, `${(i % 2 === 0 ? BUG : PAYMENT)[i % 4]!} ${randomUUID().slice(0, 8)}`));
    }
    return ids;
  }

  /** Waits until every ticket of the batch is classified (companies with a model), then for the consumers to finish. */
  async function settled(company: Company, ids: string[]): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (company !== "plain") {
      const { rows } = await db.query<{ done: string }>("select count(*) as done from tickets.triage_runs where ticket_id = any($1::uuid[])", [ids]);
      if (Number(rows[0]!.done) === ids.length) break;
      if (Date.now() > deadline) throw new Error(`${ids.length - Number(rows[0]!.done)} tickets of ${company} not classified`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }

  const cpu = idleCorrectedMeter(meter);
  async function batch(company: Company): Promise<Record<string, number>> {
    progress(`${TICKETS} tickets of the ${company} company`);
    return cpu.perUnit(TICKETS, async () => {
      const ids = await createTickets(company);
      await settled(company, ids);
    });
  }

  // A warm-up batch, not counted: the first requests compile code and fill caches.
  await settled("plain", await createTickets("plain"));
  await cpu.measureIdle(10);
  const first = await batch("plain");
  const suggesting = await batch("suggesting");
  const setting = await batch("setting");
  const last = await batch("plain");
  const { rows: decided } = await db.query<{ decision: string; count: string }>(
    "select decision, count(*) as count from tickets.triage_predictions where company_id = any($1::uuid[]) group by decision order by decision",
    [[companies.suggesting.tenant.companyId, companies.setting.tenant.companyId]],
  );
  await db.end();
  await admin.end();

  const names = [...new Set([...Object.keys(first), ...Object.keys(setting), ...Object.keys(last)])].filter((name) => name !== "client").sort();
  const plain = (name: string) => ((first[name] ?? 0) + (last[name] ?? 0)) / 2;
  const added = (of: Record<string, number>, name: string) => Math.round((of[name] ?? 0) - plain(name));
  const sum = (of: Record<string, number>, list: string[]) => list.reduce((total, name) => total + added(of, name), 0);
  const suggestMicros = sum(suggesting, TRIAGE_PROCESSES);
  const setMicros = sum(setting, TRIAGE_PROCESSES);
  const rows: Row[] = [];
  const table = [
    `| process | CPU µs/ticket, no model | model, suggestions only | model, values set | no model again | added: suggestions | added: values set |`,
    `|---|---|---|---|---|---|---|`,
    ...names.map((name) => `| ${name} | ${first[name] ?? "-"} | ${suggesting[name] ?? "-"} | ${setting[name] ?? "-"} | ${last[name] ?? "-"} | ${added(suggesting, name)} | ${added(setting, name)} |`),
    `| **tickets + postgres** | | | | | **${suggestMicros}** | **${setMicros}** (target ≤ ${TARGET_MICROS}) |`,
    `| all processes (with the set values' events to webhooks, email, the gateway) | | | | | ${sum(suggesting, names)} | ${sum(setting, names)} |`,
    "",
    `Predictions stored (both companies, history included): ${decided.map((row) => `${row.decision} ${row.count}`).join(", ")}.`,
  ].join("\n");
  return { rows, table, details: { tickets: TICKETS, idlePerSecond: cpu.idlePerSecond, perTicket: { plainBefore: first, suggesting, setting, plainAfter: last }, suggestMicrosPerTicket: suggestMicros, setMicrosPerTicket: setMicros, targetMicros: TARGET_MICROS, decided } };
}
