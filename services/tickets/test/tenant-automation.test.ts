// `pnpm admin apply` of a tenant file with the automation the tickets service owns (rules, sla,
// triage, outbreaks), end to end: the admin tool in-process against content, players and tickets
// (TicketsAdminService.ApplyAutomation). Applied twice it changes nothing; rules made in the
// console are never touched; a rule dropped from the file is deleted; a bad section is refused at
// its path and writes nothing of the tickets part.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";

let ctx: TicketsTestContext;

beforeAll(async () => {
  ctx = await startTickets({ RULES_SWEEP_INTERVAL_MS: 0, SLA_SWEEP_INTERVAL_MS: 0, TRIAGE_TRAIN_INTERVAL_MS: 0 });
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

type Applied = TenantResult & { alreadyApplied?: true; rules?: { name: string; id: string; action: string }[]; automation?: Record<string, string> };

function withAutomation(base: ReturnType<typeof tenantFile>) {
  return {
    ...base,
    rules: [
      {
        name: "Galaxy crashes",
        trigger: { type: "ticket_created" },
        conditions: [{ type: "game", in: ["galaxy"] }, { type: "text", matches: "crash(es|ed)?" }],
        actions: [{ type: "addTags", tagNames: ["crash"] }, { type: "assignTicket", assigneeId: "alice" }],
      },
      { name: "Nudge waiting", trigger: { type: "time", status: "waiting", hours: 48 }, actions: [{ type: "sendMessage", message: "Anything else we can do?" }] },
    ],
    sla: {
      calendar: { timeZone: "Europe/Berlin", hours: [{ day: 1, start: "09:00", end: "17:00" }], holidays: ["2026-12-25"] },
      policies: [{ id: "galaxy", name: "Galaxy", games: ["galaxy"], targets: { firstResponseMinutes: 60 }, businessHours: true, warnBeforeMinutes: 10 }],
    },
    triage: { threshold: 0.9 },
    outbreaks: { enabled: true, minTickets: 5 },
  };
}

/** Everything of the tickets part of a company, to prove that a run wrote nothing. */
async function snapshot(companyId: string) {
  const rows = async (table: "rules" | "sla_settings" | "triage_settings" | "outbreak_settings") =>
    (await ctx.db.selectFrom(table).selectAll().where("company_id", "=", companyId).execute()).map((row) => JSON.stringify(row)).sort();
  return { rules: await rows("rules"), sla: await rows("sla_settings"), triage: await rows("triage_settings"), outbreaks: await rows("outbreak_settings") };
}

async function refusal(args: string[], stdin: string): Promise<{ code: string; issues: { path: string; message: string }[] }> {
  try {
    await ctx.admin(args, stdin);
  } catch (error) {
    const text = (error as Error).message;
    // The message holds stdout (one pretty-printed JSON object, closed by a "}" at the start of a line), then stderr.
    const start = text.indexOf("{");
    const printed = JSON.parse(text.slice(start, text.indexOf("\n}\n", start) + 2)) as { error: { code: string; issues?: { path: string; message: string }[] } };
    return { code: printed.error.code, issues: printed.error.issues ?? [] };
  }
  throw new Error("expected the apply to be refused");
}

describe("pnpm admin apply: the tickets service's automation", () => {
  it("applies rules, SLA, triage and outbreaks; again changes nothing; console rules are untouched; a dropped rule is deleted", async () => {
    const file = withAutomation(tenantFile());
    const first = await ctx.admin<Applied>(["apply", "-"], JSON.stringify(file));
    const companyId = first.companyId;
    expect(first.rules?.map(({ name, action }) => [name, action])).toEqual([["Galaxy crashes", "created"], ["Nudge waiting", "created"]]);
    expect(first.automation).toEqual({ sla: "updated", triage: "updated", outbreaks: "updated" });

    // Refs became ids; the rules are the file's.
    const stored = await ctx.db.selectFrom("rules").selectAll().where("company_id", "=", companyId).orderBy("position").execute();
    expect(stored.map((rule) => [rule.name, rule.source, rule.position])).toEqual([["Galaxy crashes", "tenant_file", 1], ["Nudge waiting", "tenant_file", 2]]);
    expect(stored[0]!.conditions).toContainEqual({ type: "game", in: [first.games.galaxy!.id] });
    expect(stored[0]!.actions).toContainEqual({ type: "assignTicket", assigneeId: first.users.alice });
    const sla = await ctx.tickets.getSlaSettings({ companyId });
    expect(sla.settings).toMatchObject({ policies: [{ id: "galaxy", gameIds: [first.games.galaxy!.id], targets: { firstResponseMinutes: 60 } }] });
    expect((await ctx.tickets.getTriageSettings({ companyId })).settings?.threshold).toBeCloseTo(0.9);
    expect(await ctx.tickets.getOutbreakSettings({ companyId })).toMatchObject({ settings: { enabled: true, minTickets: 5, windowMinutes: 30 } });

    // An admin makes a rule in the console, with a name the file also uses.
    const made = await ctx.tickets.createRule({ companyId, name: "Nudge waiting", enabled: true, trigger: { type: "ticket_closed" }, conditions: [], actions: [{ type: "addTags", tagNames: ["vip"] }] });
    const consoleRow = await ctx.db.selectFrom("rules").selectAll().where("id", "=", made.rule!.id).executeTakeFirstOrThrow();
    const before = await snapshot(companyId);

    // The same file again: the same company, nothing written.
    const again = await ctx.admin<Applied>(["apply", "-"], JSON.stringify(file));
    expect(again).toMatchObject({ companyId, alreadyApplied: true });
    expect(again.rules).toEqual(first.rules!.map((rule) => ({ ...rule, action: "unchanged" })));
    expect(again.automation).toEqual({ sla: "unchanged", triage: "unchanged", outbreaks: "unchanged" });
    expect(await snapshot(companyId)).toEqual(before);

    // A rule dropped from the file and another turned off: the company the file made, not another.
    const edited = { ...file, rules: [{ ...file.rules[0]!, enabled: false }], triage: { threshold: 0.95 } };
    const third = await ctx.admin<Applied>(["apply", "-"], JSON.stringify(edited));
    expect(third.companyId).toBe(companyId);
    expect(third.rules?.map(({ name, action }) => [name, action])).toEqual([["Galaxy crashes", "updated"], ["Nudge waiting", "deleted"]]);
    expect(third.automation).toEqual({ sla: "unchanged", triage: "updated", outbreaks: "unchanged" });
    const left = await ctx.db.selectFrom("rules").selectAll().where("company_id", "=", companyId).orderBy("position").execute();
    expect(left.map((rule) => [rule.name, rule.source, rule.enabled, rule.position])).toEqual([["Galaxy crashes", "tenant_file", false, 1], ["Nudge waiting", "console", true, 2]]);
    expect(left[0]!.id).toBe(first.rules![0]!.id);
    // The console's rule only moved up into the deleted rule's place.
    const consoleAfter = await ctx.db.selectFrom("rules").selectAll().where("id", "=", made.rule!.id).executeTakeFirstOrThrow();
    expect({ ...consoleAfter, position: 2 }).toEqual({ ...consoleRow, position: 2 });
    expect(consoleRow.position).toBe(3);
  }, 60_000);

  it("refuses a bad section at its path and writes nothing of the tickets part", async () => {
    const file = withAutomation(tenantFile());
    const first = await ctx.admin<Applied>(["apply", "-"], JSON.stringify(file));
    const before = await snapshot(first.companyId);

    // The tool's own check: no service is called.
    const shape = await refusal(["apply", "-"], JSON.stringify({ ...file, outbreaks: { minTickets: 2 }, sla: { ...file.sla, policies: [{ ...file.sla.policies[0]!, games: ["nowhere"] }] } }));
    expect(shape.code).toBe("invalid_argument");
    expect(shape.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: "outbreaks/minTickets" })]));
    // The tickets service's check (RE2 refuses lookahead): the tickets part is all or nothing.
    const bad = { ...file, rules: [file.rules[0]!, { name: "Bad", trigger: { type: "ticket_created" }, conditions: [{ type: "text", matches: "(?=x)" }], actions: [{ type: "addTags", tagNames: ["nope"] }] }], triage: { threshold: 0.6 } };
    const refused = await refusal(["apply", "-"], JSON.stringify(bad));
    expect(refused.code).toBe("invalid_argument");
    expect(refused.issues.map((issue) => issue.path)).toEqual(["rules/1/conditions/0/matches"]);
    expect(await snapshot(first.companyId)).toEqual(before);
    const unknownTag = await refusal(["apply", "-"], JSON.stringify({ ...bad, rules: [bad.rules[0]!, { ...bad.rules[1]!, conditions: [] }] }));
    expect(unknownTag.issues.map((issue) => issue.path)).toEqual(["rules/1/actions/0/tagNames/0"]);
    expect(await snapshot(first.companyId)).toEqual(before);
  }, 60_000);
});
