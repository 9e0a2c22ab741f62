// The automation settings in the audit log, over the real stack: an admin's changes of the rules
// (created, changed, turned off, reordered, deleted), the SLA settings, the triage threshold and
// the outbreak settings through the agent API each arrive in the company's audit log (the tickets
// service hands them to content as tickets.audit.recorded) with the admin as actor, the client
// address and only what changed before and after; a save that changes nothing records nothing; a
// tenant file's automation is recorded with the operator as actor; and an event delivered twice
// is recorded once.
import { randomUUID } from "node:crypto";
import { connectBus } from "@support/bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@audit.example`, abe: `abe-${suffix}@audit.example` };

interface AuditEntryDto {
  id: string;
  action: string;
  actor: { type: string; id: string | null; name: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
let ada: SignedInAgent;
let adaId: string;

const ok = (response: StackResponse, status = 200) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};
const write = (method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown) => agentWrite(stack, ada, method, path, json);
/** The company's entries of a family of actions (`rule.`), oldest first. */
const entries = async (family: string): Promise<AuditEntryDto[]> =>
  ((ok(await agentRead(stack, ada, `/agent-api/audit-log?action=${family}&limit=200`)) as { entries: AuditEntryDto[] }).entries).reverse();
/** Waits until the family has `count` entries (the outbox relay and content's consumer take a moment). */
const settled = async (family: string, count: number): Promise<AuditEntryDto[]> => {
  await expect.poll(async () => (await entries(family)).length, { timeout: 30_000 }).toBe(count);
  return entries(family);
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Audit Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    tags: [{ name: "refund", game: null }],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  await stack.admin(["users", "set-password", "--email", emails.ada], `${PASSWORD}\n`);
  ada = await signInAgent(stack, emails.ada, PASSWORD);
  adaId = tenant.users.ada!;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe("the automation settings in the audit log", () => {
  it("records each change of a rule by the admin, with only what changed; a save that changes nothing records nothing", async () => {
    const refunds = ok(await write("POST", "/agent-api/settings/rules", { name: "Refunds", trigger: { type: "ticket_created" }, conditions: [{ type: "text", matches: "refund" }], actions: [{ type: "addTags", tagNames: ["refund"] }] }), 201) as { id: string };
    const vip = ok(await write("POST", "/agent-api/settings/rules", { name: "VIP", trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["refund"] }] }), 201) as { id: string };
    ok(await write("PATCH", `/agent-api/settings/rules/${refunds.id}`, { enabled: false }));
    // The same again, and a rename to its own name: nothing changes, nothing is recorded.
    ok(await write("PATCH", `/agent-api/settings/rules/${refunds.id}`, { enabled: false, name: "Refunds" }));
    ok(await write("PUT", "/agent-api/settings/rule-order", { ruleIds: [vip.id, refunds.id] }));
    ok(await write("PUT", "/agent-api/settings/rule-order", { ruleIds: [vip.id, refunds.id] }));
    ok(await write("DELETE", `/agent-api/settings/rules/${vip.id}`), 204);

    const found = await settled("rule.", 5);
    expect(found.map((entry) => entry.action)).toEqual(["rule.created", "rule.created", "rule.updated", "rule.reordered", "rule.deleted"]);
    for (const entry of found) {
      expect(entry.actor).toEqual({ type: "user", id: adaId, name: "Ada Admin" });
      expect(entry.clientAddress).toBe("127.0.0.1");
    }
    expect(found[0]).toMatchObject({
      target: { type: "rule", id: refunds.id },
      before: null,
      after: { name: "Refunds", enabled: true, trigger: { type: "ticket_created" }, conditions: [{ type: "text", matches: "refund" }], actions: [{ type: "addTags", tagNames: ["refund"] }] },
    });
    // Turned off: the rule's name (to tell which) and what changed, nothing else.
    expect(found[2]).toMatchObject({ target: { type: "rule", id: refunds.id } });
    expect(found[2]!.before).toEqual({ name: "Refunds", enabled: true });
    expect(found[2]!.after).toEqual({ name: "Refunds", enabled: false });
    expect(found[3]).toMatchObject({ target: { type: "rules", id: tenant.companyId }, before: { order: ["Refunds", "VIP"] }, after: { order: ["VIP", "Refunds"] } });
    expect(found[4]).toMatchObject({ target: { type: "rule", id: vip.id }, before: { name: "VIP", enabled: true }, after: null });
  });

  it("records the SLA settings, the triage threshold and the outbreak settings as the admin changed them", async () => {
    const calendar = { timeZone: "Europe/Berlin", hours: [{ day: 1, start: "09:00", end: "17:00" }], holidays: [] };
    const policy = { id: "galaxy", name: "Galaxy", gameIds: [tenant.games.galaxy!.id], targets: { firstResponseMinutes: 60 }, businessHours: true };
    ok(await write("PUT", "/agent-api/settings/sla", { calendar, policies: [policy] }));
    ok(await write("PUT", "/agent-api/settings/sla", { calendar, policies: [policy] }));
    ok(await write("PUT", "/agent-api/settings/sla", { calendar, policies: [{ ...policy, targets: { firstResponseMinutes: 30 } }] }));
    ok(await write("PATCH", "/agent-api/settings/triage", { threshold: 0.9 }));
    ok(await write("PATCH", "/agent-api/settings/triage", { threshold: 0.9 }));
    ok(await write("PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 }));
    ok(await write("PUT", "/agent-api/settings/outbreaks", { enabled: true, minTickets: 5, windowMinutes: 30, similarity: 0.6 }));

    const sla = await settled("sla.", 2);
    expect(sla.map((entry) => [entry.action, entry.actor.id, entry.target])).toEqual([
      ["sla.updated", adaId, { type: "sla_settings", id: tenant.companyId }],
      ["sla.updated", adaId, { type: "sla_settings", id: tenant.companyId }],
    ]);
    // The first save: the calendar and the policies, none before. The second: only the policies.
    expect(sla[0]!.before).toEqual({ calendar: null, policies: [] });
    expect(sla[0]!.after).toMatchObject({ calendar: { timeZone: "Europe/Berlin" }, policies: [{ id: "galaxy", targets: { firstResponseMinutes: 60 } }] });
    expect(Object.keys(sla[1]!.after!)).toEqual(["policies"]);
    expect(sla[1]!.after).toMatchObject({ policies: [{ id: "galaxy", targets: { firstResponseMinutes: 30 } }] });

    const triage = await settled("triage.", 1);
    expect(triage[0]).toMatchObject({ action: "triage.updated", actor: { type: "user", id: adaId }, target: { type: "triage_settings", id: tenant.companyId }, before: { threshold: 0.8 }, after: { threshold: 0.9 }, clientAddress: "127.0.0.1" });

    const outbreaks = await settled("outbreaks.", 1);
    expect(outbreaks[0]).toMatchObject({ action: "outbreaks.updated", actor: { type: "user", id: adaId }, target: { type: "outbreak_settings", id: tenant.companyId } });
    // Only the values that changed (the defaults' window and similarity stayed).
    expect(outbreaks[0]!.before).toEqual({ enabled: false, minTickets: 10 });
    expect(outbreaks[0]!.after).toEqual({ enabled: true, minTickets: 5 });
  });

  it("records a tenant file's automation with the operator as actor, and only what it changed when applied again", async () => {
    const file = {
      company: { name: "Automation File Studio" },
      games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
      users: [{ ref: "fay", name: "Fay Admin", email: `fay-${suffix}@audit.example`, role: "admin" }],
      rules: [{ name: "Greet", trigger: { type: "ticket_created" }, actions: [{ type: "sendMessage", message: "Hello!" }] }],
      triage: { threshold: 0.95 },
      outbreaks: { enabled: true },
    };
    const applied = await stack.applyTenant(file);
    await stack.admin(["users", "set-password", "--email", `fay-${suffix}@audit.example`], `${PASSWORD}\n`);
    const fay = await signInAgent(stack, `fay-${suffix}@audit.example`, PASSWORD);
    const read = async (family: string) => ((ok(await agentRead(stack, fay, `/agent-api/audit-log?action=${family}&limit=200`)) as { entries: AuditEntryDto[] }).entries).reverse();
    const automation = async () => [...(await read("rule.")), ...(await read("triage.")), ...(await read("outbreaks."))];
    await expect.poll(async () => (await automation()).length, { timeout: 30_000 }).toBe(3);
    for (const entry of await automation()) expect(entry).toMatchObject({ actor: { type: "operator", id: null, name: null }, clientAddress: null });
    expect((await automation()).map((entry) => entry.action)).toEqual(["rule.created", "triage.updated", "outbreaks.updated"]);

    // Applied again with one rule changed: one entry more, for that change alone.
    await stack.admin(["apply", "--company", applied.companyId, "-"], JSON.stringify({ ...file, rules: [{ ...file.rules[0]!, enabled: false }] }));
    await expect.poll(async () => (await automation()).length, { timeout: 30_000 }).toBe(4);
    const changed = (await read("rule.")).at(-1)!;
    expect(changed).toMatchObject({ action: "rule.updated", actor: { type: "operator", id: null }, before: { name: "Greet", enabled: true }, after: { name: "Greet", enabled: false } });
  });

  it("records an event delivered twice once", async () => {
    // The same tickets.audit.recorded event twice on the tickets' stream (a redelivery, a replay):
    // core publishes carry no message id, so the stream's duplicate window lets both in.
    const nc = await connectBus(stack.infra.natsUrl, "automation-audit-test");
    const envelope = (after: Record<string, unknown>) => ({
      id: randomUUID(), version: 1, type: "tickets.audit.recorded", occurredAt: new Date().toISOString(), companyId: tenant.companyId,
      data: {
        action: "triage.updated", actor: { type: "user", id: adaId }, target: { type: "triage_settings", id: tenant.companyId },
        before: { threshold: 0.9 }, after, detail: {}, clientAddress: "127.0.0.1", createdAt: new Date().toISOString(),
      },
    });
    const twice = envelope({ threshold: 0.85 });
    try {
      for (const event of [twice, twice, envelope({ threshold: 0.7 })]) nc.publish(`${stack.infra.natsPrefix}tickets.audit.recorded`, JSON.stringify(event));
      await nc.flush();
    } finally {
      await nc.drain();
    }
    // One message at a time, in order: once the last one is in, the second copy was handled.
    await expect.poll(async () => (await entries("triage.")).at(-1)?.after, { timeout: 30_000 }).toEqual({ threshold: 0.7 });
    expect((await entries("triage.")).map((entry) => entry.after)).toEqual([{ threshold: 0.9 }, { threshold: 0.85 }, { threshold: 0.7 }]);
  });
});
