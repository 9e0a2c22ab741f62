// `pnpm bench rules`: what automation rules cost per ticket creation (docs/automation.md). The
// whole stack as processes; four companies alike but for their rules: "none" (no rules),
// "nomatch" (ten enabled ticket_created rules whose conditions do not hold: text patterns, tags,
// tiers, languages: the lookup and the evaluation alone) and "applies" (the same ten plus one
// that holds and adds a tag: the evaluation plus a change through the ticket's actions, with its
// events), and "manual" (the same ten, none holding, and the bench making the applying rule's
// change itself through POST /tickets/{id}/actions after each creation: what the change costs
// when nobody automates it). Tickets are created one after another in batches (none, nomatch,
// applies, manual; BENCH_RULES_ROUNDS rounds, and "none" once more at the end, so that a drift of
// the machine falls on every company alike), each waited for until its events are handled. CPU
// of every process and of the bench database's Postgres backends per ticket, from /proc, less
// what each process spends idle.
// Target: rules add at most 1 ms of CPU per ticket creation: the evaluation ("nomatch" less
// "none"), and an applying rule beyond the change it makes ("applies" less "manual").
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { addedOver, cpuMeter, idleCorrectedMeter, interleavedRounds, meanPerProcess, spreadPerProcess } from "./cpu.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { progress, runDirectory, startStack } from "./stack.ts";

type Company = "none" | "nomatch" | "applies" | "manual";

const TICKETS = Number(process.env.BENCH_RULES_TICKETS ?? 300);
/** Rounds of the four batches: their means are compared (one round alone moved by about 1 ms per process). */
const ROUNDS = Number(process.env.BENCH_RULES_ROUNDS ?? 3);
const PASSWORD = "a quiet harbour at dawn, 2026";
const TARGET_MICROS = 1000;
/** The processes rules run in, or ask: what the target counts. */
const RULES_PROCESSES = ["tickets", "content", "postgres"];

/** Ten rules whose conditions never hold for the bench's tickets (English, tier 1, no tags, "Bench ticket <uuid>"). */
const NOT_MATCHING = [
  { conditions: [{ type: "text", matches: "refund|charge ?back|stolen account" }] },
  { conditions: [{ type: "text", contains: "crash" }] },
  { conditions: [{ type: "tier", in: [3] }] },
  { conditions: [{ type: "language", in: ["de", "fr", "ja"] }] },
  { conditions: [{ type: "tags", any: ["bug"] }] },
  { conditions: [{ type: "channel", in: ["chat"] }] },
  { conditions: [{ type: "metadata", key: "playerTier", in: [2, 3] }] },
  { conditions: [{ type: "text", matches: "^(?:hello|hi) .*urgent" }, { type: "tier", in: [1] }] },
  { conditions: [{ type: "tags", any: ["seen"] }] },
  { conditions: [{ type: "text", contains: "payment" }, { type: "language", in: ["en"] }] },
].map((rule, i) => ({ name: `Not matching ${i}`, trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["bug"] }], ...rule }));

export async function rulesSuite(): Promise<SuiteResult> {
  const stack = await startStack();
  const suffix = randomUUID().slice(0, 8);
  const origin = new URL(stack.gateway).origin;
  const tenants = {} as Record<Company, { key: string; companyId: string; gameId: string }>;
  for (const company of ["none", "nomatch", "applies", "manual"] as Company[]) {
    const email = `admin-${company}-${suffix}@bench.example`;
    const file = path.join(runDirectory(), `rules-${company}-tenant.json`);
    writeFileSync(file, JSON.stringify({
      company: { name: `Rules bench ${company} ${suffix}` },
      apiKeys: [{ name: "main" }],
      games: [{ ref: "game", name: "Game", slug: `rules-${company}-${suffix}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
      tags: [{ name: "bug", game: null }, { name: "seen", game: null }],
      users: [{ ref: "admin", name: "Admin", email, role: "admin" }],
    }));
    const tenant = await stack.applyTenant(file);
    tenants[company] = { key: Object.values(tenant.apiKeys)[0]!, companyId: tenant.companyId, gameId: tenant.games.game!.id };
    if (company === "none") continue;
    await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
    const signedIn = await fetch(`${stack.gateway}/agent-api/sign-in`, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) });
    const cookie = /^(support_session=[^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")?.[1];
    if (!cookie) throw new Error(`sign-in of ${email} answered ${signedIn.status}`);
    const { csrfToken } = (await (await fetch(`${stack.gateway}/agent-api/me`, { headers: { cookie } })).json()) as { csrfToken: string };
    const rules = company === "applies" ? [...NOT_MATCHING, { name: "Seen", trigger: { type: "ticket_created" }, conditions: [{ type: "language", in: ["en"] }], actions: [{ type: "addTags", tagNames: ["seen"] }] }] : NOT_MATCHING;
    for (const rule of rules) {
      const created = await fetch(`${stack.gateway}/agent-api/settings/rules`, {
        method: "POST", headers: { cookie, origin, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: JSON.stringify(rule),
      });
      if (created.status !== 201) throw new Error(`creating a rule answered ${created.status}: ${await created.text()}`);
    }
  }

  const admin = new pg.Client({ connectionString: stack.adminUrl });
  await admin.connect();
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const meter = cpuMeter(() => stack.processes.map(({ name, child }) => ({ name, pid: child.pid! })), admin, new URL(stack.databaseUrl).pathname.slice(1));

  async function createTickets(company: Company): Promise<void> {
    const { key, gameId } = tenants[company];
    for (let i = 0; i < TICKETS; i += 1) {
      const response = await fetch(`${stack.gateway}/tickets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          gameId, message: `Bench ticket ${randomUUID()}`, language: "en", channels: ["email"],
          metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } },
        }),
      });
      if (response.status !== 200) throw new Error(`POST /tickets answered ${response.status}: ${await response.text()}`);
      const { ticketId } = (await response.json()) as { ticketId: string };
      if (company === "manual") {
        // The applying rule's change, made by the game's backend instead of a rule.
        const changed = await fetch(`${stack.gateway}/tickets/${ticketId}/actions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ actions: [{ type: "addTags", tagNames: ["seen"] }] }),
        });
        if (changed.status !== 200) throw new Error(`POST /tickets/{id}/actions answered ${changed.status}: ${await changed.text()}`);
        await changed.arrayBuffer();
      }
    }
  }

  /** Waits until the rules are done: for "applies", every ticket tagged; then the consumers finish. */
  async function settled(company: Company): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (company === "applies") {
      const { rows } = await db.query<{ left: string }>("select count(*) as left from tickets.tickets where company_id = $1 and not ('seen' = any(tags))", [tenants[company].companyId]);
      if (Number(rows[0]!.left) === 0) break;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.left} tickets not yet tagged by the rule`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }

  const cpu = idleCorrectedMeter(meter);
  async function batch(company: Company): Promise<Record<string, number>> {
    progress(`${TICKETS} tickets of the company "${company}"`);
    return cpu.perUnit(TICKETS, async () => {
      await createTickets(company);
      await settled(company);
    });
  }

  // A warm-up batch of each, not counted: the first requests compile code and fill caches.
  for (const company of ["none", "nomatch", "applies", "manual"] as Company[]) {
    await createTickets(company);
    await settled(company);
  }
  await cpu.measureIdle(10);
  const samples = await interleavedRounds<Company>(["none", "nomatch", "applies", "manual"], ROUNDS, batch);
  await db.end();
  await admin.end();
  const none = meanPerProcess(samples.none);
  const spread = spreadPerProcess(samples.none);
  const nomatch = meanPerProcess(samples.nomatch);
  const applies = meanPerProcess(samples.applies);
  const manual = meanPerProcess(samples.manual);

  const names = [...new Set([...Object.keys(none), ...Object.keys(applies)])].filter((name) => name !== "client").sort();
  const { added, sum } = addedOver(none);
  const evaluationMicros = sum(nomatch, RULES_PROCESSES);
  const appliedMicros = sum(applies, RULES_PROCESSES);
  const manualMicros = sum(manual, RULES_PROCESSES);
  /** What the applying rule costs beyond the same change made through the API. */
  const beyondChangeMicros = appliedMicros - manualMicros;
  const rows: Row[] = [];
  const table = [
    `Means of ${ROUNDS} rounds (${ROUNDS + 1} batches without rules) of ${TICKETS} tickets per batch.`,
    ``,
    `| process | CPU µs/ticket, no rules | its batches' spread | 10 rules, none holds | 11 rules, one applies | 10 rules, the change made through the API | added: evaluation only | added: evaluation + one rule's change | added: the same change through the API |`,
    `|---|---|---|---|---|---|---|---|---|`,
    ...names.map((name) => `| ${name} | ${none[name] ?? "-"} | ${spread[name] ?? "-"} | ${nomatch[name] ?? "-"} | ${applies[name] ?? "-"} | ${manual[name] ?? "-"} | ${added(nomatch, name)} | ${added(applies, name)} | ${added(manual, name)} |`),
    `| **tickets + content + postgres** | | | | | | **${evaluationMicros}** (target ≤ ${TARGET_MICROS}) | **${appliedMicros}** | **${manualMicros}** |`,
    `| all processes | | | | | | ${sum(nomatch, names)} | ${sum(applies, names)} | ${sum(manual, names)} |`,
    ``,
    `An applying rule beyond the change it makes (tickets + content + postgres): **${beyondChangeMicros} µs** (target ≤ ${TARGET_MICROS}).`,
  ].join("\n");
  return { rows, table, details: { tickets: TICKETS, idlePerSecond: cpu.idlePerSecond, rounds: ROUNDS, perTicket: { none, noneSpread: spread, nomatch, applies, manual }, batches: samples, evaluationMicrosPerTicket: evaluationMicros, appliedMicrosPerTicket: appliedMicros, manualChangeMicrosPerTicket: manualMicros, beyondChangeMicrosPerTicket: beyondChangeMicros, targetMicros: TARGET_MICROS } };
}
