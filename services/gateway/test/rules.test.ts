// Rules end to end (docs/automation.md): an admin manages the company's rules through the agent
// API of the real gateway; tickets created, answered, moved and closed through the public API and
// the player side trigger them in the tickets service (JetStream, outbox), in their order; their
// changes are attributed to the rule in the ticket's events; a rule never re-triggers itself, a
// chain of rules stops at the depth limit, and the run history shows all of it per rule and per
// ticket. Agents get 403 on the rules (they read a ticket's runs), another company's rule is 404,
// bad input a 400 naming its path.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@rules.example`, abe: `abe-${suffix}@rules.example`, oto: `oto-${suffix}@other.example` };
const TAGS = ["vip-refund", "escalated", "seen", "urgent", "notify", "loopy", "pingpong"];

interface RuleDto {
  id: string;
  name: string;
  enabled: boolean;
  position: number;
  trigger: { type: string; to?: string };
  conditions: Record<string, unknown>[];
  actions: Record<string, unknown>[];
  source: string;
}
interface RunDto {
  ruleId: string;
  ruleName: string;
  ticketId: string;
  trigger: string;
  outcome: string;
  depth: number;
  actions: Record<string, unknown>[];
  error: string | null;
}
interface EventDto {
  type: string;
  actor: { type: string; id: string | null };
  message?: string;
}

let stack: Stack;
let tenant: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const rules: Record<string, RuleDto> = {};

const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const ok = (response: StackResponse, status = 200) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};
const createRule = async (key: string, body: Record<string, unknown>) => {
  rules[key] = ok(await write(users.ada, "POST", "/agent-api/settings/rules", body), 201) as RuleDto;
  return rules[key];
};
const listed = async () => (ok(await read(users.ada, "/agent-api/settings/rules")) as { rules: RuleDto[] }).rules;
const runs = async (query: string) => (ok(await read(users.ada, `/agent-api/settings/rule-runs?${query}`)) as { runs: RunDto[] }).runs;
const key = () => tenant.apiKeys.main!;
const ticketOf = async (ticketId: string) => {
  const [ticket] = (ok(await stack.request(`/tickets?ticketId=${ticketId}`, { key: key() })) as { tickets: { tags: string[]; status: string }[] }).tickets;
  return ticket!;
};
/** The ticket's conversation as the console shows it to an admin: each event with who caused it. */
const eventsOf = async (ticketId: string): Promise<EventDto[]> =>
  (ok(await read(users.ada, `/agent-api/tickets/${ticketId}`)) as { conversation: { event: { type: string; message?: string }; author: EventDto["actor"] }[] }).conversation.map(
    (entry) => ({ ...entry.event, actor: entry.author }),
  );
const hasTag = (ticketId: string, tag: string) => eventually(async () => (await ticketOf(ticketId)).tags.includes(tag), 15_000);
const actions = async (ticketId: string, list: unknown[]) => ok(await stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key: key(), json: { actions: list } }));
const newTicket = async (message: string, options: { tier?: number; tags?: string[] } = {}) => {
  const body = ok(await stack.request("/tickets", {
    method: "POST",
    key: key(),
    json: {
      gameId: tenant.games.galaxy!.id,
      message,
      language: "en",
      channels: ["email"],
      metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example`, ...(options.tier !== undefined ? { tier: options.tier } : {}) }, ...(options.tags ? { tags: options.tags } : {}) },
    },
  })) as { ticketId: string };
  return body.ticketId;
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Rules Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    tags: TAGS.map((name) => ({ name, game: null })),
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  await stack.applyTenant({
    company: { name: "Other Studio" },
    games: [{ ref: "theirs", name: "Theirs", slug: `theirs-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("managing rules", () => {
  it("refuses bad rules with a 400 at each path, and agents with a 403", async () => {
    const refused = await write(users.ada, "POST", "/agent-api/settings/rules", {
      name: "Broken",
      trigger: { type: "ticket_created" },
      conditions: [{ type: "text", matches: "(unclosed" }, { type: "language", in: ["xx"] }],
      actions: [{ type: "addTags", tagNames: ["no-such-tag"] }],
    });
    expect(refused.status, refused.text).toBe(400);
    expect(issuePaths(refused)).toEqual(["/conditions/0/matches", "/conditions/1/in/0"]);
    const unknownTag = await write(users.ada, "POST", "/agent-api/settings/rules", { name: "Typo", trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["seen", "sene"] }] });
    expect(unknownTag.status, unknownTag.text).toBe(400);
    expect(issuePaths(unknownTag)).toEqual(["/actions/0/tagNames/1"]);
    const attributed = await write(users.ada, "POST", "/agent-api/settings/rules", { name: "Someone", trigger: { type: "ticket_created" }, actions: [{ type: "addPrivateNote", message: "hi", userId: randomUUID() }] });
    expect(issuePaths(attributed)).toEqual(["/actions/0/userId"]);
    expect((await write(users.abe, "POST", "/agent-api/settings/rules", { name: "Mine", trigger: { type: "ticket_created" }, actions: [{ type: "resolveTicket" }] })).status).toBe(403);
    expect((await read(users.abe, "/agent-api/settings/rules")).status).toBe(403);
    expect((await read(users.abe, "/agent-api/settings/rule-runs")).status).toBe(403);
    expect(await listed()).toEqual([]);
  });

  it("creates rules in order, reorders, turns one off, and keeps them from other companies", async () => {
    await createRule("vip", {
      name: "VIP refunds",
      trigger: { type: "ticket_created" },
      conditions: [{ type: "text", matches: "refund|charge ?back" }, { type: "tier", in: [3] }],
      actions: [{ type: "addTags", tagNames: ["vip-refund"] }, { type: "addPrivateNote", message: "VIP refund: check the payment provider." }],
    });
    await createRule("escalate", { name: "Escalate VIP refunds", trigger: { type: "ticket_created" }, conditions: [{ type: "tags", any: ["vip-refund"] }], actions: [{ type: "addTags", tagNames: ["escalated"] }] });
    await createRule("seen", { name: "Seen", trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["seen"] }] });
    await createRule("off", { name: "Off", enabled: false, trigger: { type: "ticket_created" }, actions: [{ type: "resolveTicket" }] });
    expect((await listed()).map((rule) => [rule.name, rule.position, rule.enabled])).toEqual([
      ["VIP refunds", 1, true], ["Escalate VIP refunds", 2, true], ["Seen", 3, true], ["Off", 4, false],
    ]);
    expect(rules.vip!.conditions).toEqual([{ type: "text", matches: "refund|charge ?back" }, { type: "tier", in: [3] }]);

    const partial = await write(users.ada, "PUT", "/agent-api/settings/rule-order", { ruleIds: [rules.seen!.id, rules.vip!.id] });
    expect(partial.status).toBe(400);
    expect(issuePaths(partial)).toEqual(["/ruleIds"]);
    const other = ok(await write(users.oto, "POST", "/agent-api/settings/rules", { name: "Theirs", trigger: { type: "ticket_closed" }, actions: [{ type: "addPrivateNote", message: "x" }] }), 201) as RuleDto;
    expect((await write(users.ada, "PATCH", `/agent-api/settings/rules/${other.id}`, { enabled: false })).status).toBe(404);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/rules/${other.id}`)).status).toBe(404);
    expect(issuePaths(await write(users.ada, "PUT", "/agent-api/settings/rule-order", { ruleIds: [rules.seen!.id, rules.vip!.id, rules.escalate!.id, other.id] }))).toEqual(["/ruleIds/3"]);

    const deleted = await write(users.ada, "DELETE", `/agent-api/settings/rules/${rules.off!.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    const changed = ok(await write(users.ada, "PATCH", `/agent-api/settings/rules/${rules.seen!.id}`, { name: "Seen by rules" })) as RuleDto;
    expect(changed).toMatchObject({ name: "Seen by rules", position: 3, enabled: true, actions: [{ type: "addTags", tagNames: ["seen"] }] });
    expect((await listed()).map((rule) => rule.name)).toEqual(["VIP refunds", "Escalate VIP refunds", "Seen by rules"]);
    // Made through this API: the settings keep them (a tenant file's are `tenant_file`).
    expect(new Set((await listed()).map((rule) => rule.source))).toEqual(new Set(["console"]));

    // A time rule (its sweep is tested with an injected clock in the tickets service's tests).
    const timed = ok(await write(users.ada, "POST", "/agent-api/settings/rules", {
      name: "Nudge", trigger: { type: "time", status: "waiting", hours: 48 }, actions: [{ type: "sendMessage", message: "Are you still there?" }],
    }), 201) as RuleDto;
    expect(timed).toMatchObject({ trigger: { type: "time", status: "waiting", hours: 48 }, position: 4 });
    expect(issuePaths(await write(users.ada, "PATCH", `/agent-api/settings/rules/${timed.id}`, { trigger: { type: "time", status: "closed", hours: 48 } }))).toEqual(["/trigger/status"]);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/rules/${timed.id}`)).status).toBe(204);
  });
});

describe("event triggers", () => {
  it("ticket_created: runs the matching rules in order, each seeing what the one before did, as the rule's actor", async () => {
    const vip = await newTicket("I want a refund for my gems", { tier: 3 });
    const plain = await newTicket("I want a refund for my gems", { tier: 1 });
    await hasTag(vip, "seen");
    await hasTag(plain, "seen");
    expect((await ticketOf(vip)).tags.sort()).toEqual(["escalated", "seen", "vip-refund"]);
    expect((await ticketOf(plain)).tags).toEqual(["seen"]);
    const events = await eventsOf(vip);
    const note = events.find((event) => event.type === "PRIVATE_NOTE");
    expect(note).toMatchObject({ message: "VIP refund: check the payment provider.", actor: { type: "system", id: `rule:${rules.vip!.id}` } });

    // The order decides: the escalation before the VIP rule finds no tag yet.
    const order = ok(await write(users.ada, "PUT", "/agent-api/settings/rule-order", { ruleIds: [rules.escalate!.id, rules.vip!.id, rules.seen!.id] })) as { rules: RuleDto[] };
    expect(order.rules.map((rule) => [rule.name, rule.position])).toEqual([["Escalate VIP refunds", 1], ["VIP refunds", 2], ["Seen by rules", 3]]);
    const later = await newTicket("Chargeback incoming", { tier: 3 });
    await hasTag(later, "seen");
    expect((await ticketOf(later)).tags.sort()).toEqual(["seen", "vip-refund"]);

    // Turned off, a rule runs no more.
    ok(await write(users.ada, "PATCH", `/agent-api/settings/rules/${rules.vip!.id}`, { enabled: false }));
    const off = await newTicket("refund please", { tier: 3 });
    await hasTag(off, "seen");
    expect((await ticketOf(off)).tags).toEqual(["seen"]);

    const history = await runs(`ticketId=${vip}`);
    expect(history.map((run) => [run.ruleName, run.trigger, run.outcome, run.depth]).sort()).toEqual([
      ["Escalate VIP refunds", "ticket_created", "applied", 0], ["Seen by rules", "ticket_created", "applied", 0], ["VIP refunds", "ticket_created", "applied", 0],
    ]);
    expect(history.find((run) => run.ruleId === rules.vip!.id)?.actions).toEqual(rules.vip!.actions);
    expect(await runs(`ticketId=${plain}&ruleId=${rules.vip!.id}`)).toEqual([]);
    // Another company's admin sees none of it, by ticket or by rule.
    for (const query of [`ticketId=${vip}`, `ruleId=${rules.vip!.id}`]) {
      const theirs = await read(users.oto, `/agent-api/settings/rule-runs?${query}`);
      expect(theirs.status, theirs.text).toBe(200);
      expect((theirs.body as { runs: RunDto[] }).runs).toEqual([]);
    }
    expect(issuePaths(await read(users.ada, "/agent-api/settings/rule-runs?limit=0"))).toEqual(["/query/limit"]);

    // The ticket's own runs, for anyone who sees the ticket: an agent of its game reads what the
    // admins' history holds for it; another company, or a ticket that is not there, is a 404.
    const ticketRuns = ok(await read(users.abe, `/agent-api/tickets/${vip}/rule-runs`)) as { runs: RunDto[] };
    expect(ticketRuns.runs).toEqual(history);
    expect((await read(users.oto, `/agent-api/tickets/${vip}/rule-runs`)).status).toBe(404);
    expect((await read(users.abe, `/agent-api/tickets/${randomUUID()}/rule-runs`)).status).toBe(404);
  });

  it("player_message: the player's answer on an open ticket, not the message that opened it", async () => {
    await createRule("urgent", { name: "Urgent answers", trigger: { type: "player_message" }, conditions: [{ type: "text", contains: "URGENT" }], actions: [{ type: "addTags", tagNames: ["urgent"] }] });
    const token = tenant.games.galaxy!.environments.production!.token;
    const session = (ok(await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `p-${suffix}`, email: `p-${suffix}@players.example` } } })) as { sessionCode: string }).sessionCode;
    const as = (path: string, json: unknown) => stack.request(path, { method: "POST", json, headers: { authorization: `Session ${session}` } });
    const ticketId = (ok(await as("/player-api/tickets", { message: "This is urgent: my account is gone" })) as { ticketId: string }).ticketId;
    await hasTag(ticketId, "seen");
    ok(await as(`/player-api/tickets/${ticketId}/messages`, { message: "still urgent!" }));
    await hasTag(ticketId, "urgent");
    expect(await runs(`ticketId=${ticketId}&ruleId=${rules.urgent!.id}`)).toEqual([expect.objectContaining({ trigger: "player_message", outcome: "applied" })]);
  });

  it("status_changed (to a status) and ticket_closed", async () => {
    await createRule("waiting", {
      name: "Tell the player we wait",
      trigger: { type: "status_changed", to: "waiting" },
      conditions: [{ type: "tags", any: ["notify"] }],
      actions: [{ type: "sendMessage", message: "We are waiting for your answer." }],
    });
    await createRule("closed", { name: "Closing note", trigger: { type: "ticket_closed" }, conditions: [{ type: "tags", any: ["notify"] }], actions: [{ type: "addPrivateNote", message: "Closed: survey sent." }] });
    const ticketId = await newTicket("Where is my order?", { tags: ["notify"] });
    await actions(ticketId, [{ type: "setStatus", status: "waiting" }]);
    await eventually(async () => (await eventsOf(ticketId)).some((event) => event.type === "AGENT_MESSAGE"), 15_000);
    expect((await eventsOf(ticketId)).find((event) => event.type === "AGENT_MESSAGE")?.actor).toEqual({ type: "system", id: `rule:${rules.waiting!.id}` });
    await actions(ticketId, [{ type: "resolveTicket" }]);
    await eventually(async () => (await eventsOf(ticketId)).some((event) => event.type === "PRIVATE_NOTE" && event.actor.id === `rule:${rules.closed!.id}`), 15_000);
    expect((await runs(`ticketId=${ticketId}`)).map((run) => [run.ruleName, run.trigger, run.outcome]).filter(([name]) => name !== "Seen by rules")).toEqual([
      ["Closing note", "ticket_closed", "applied"], ["Tell the player we wait", "status_changed", "applied"],
    ]);
  });
});

describe("loops", () => {
  it("a rule's own change never triggers it again; a chain between rules stops at the depth limit", async () => {
    await createRule("self", { name: "Hold loopy tickets", trigger: { type: "status_changed" }, conditions: [{ type: "tags", any: ["loopy"] }], actions: [{ type: "setOnHold", onHold: true }] });
    const loopy = await newTicket("Loop me", { tags: ["loopy"] });
    await actions(loopy, [{ type: "setStatus", status: "waiting" }]);
    await eventually(async () => (await runs(`ticketId=${loopy}&ruleId=${rules.self!.id}`)).length === 2, 15_000);
    expect((await runs(`ticketId=${loopy}&ruleId=${rules.self!.id}`)).map((run) => [run.outcome, run.depth])).toEqual([["loop_refused", 1], ["applied", 0]]);
    expect((await ticketOf(loopy)).status).toBe("on_hold");

    await createRule("ping", { name: "Ping", trigger: { type: "status_changed", to: "on_hold" }, conditions: [{ type: "tags", any: ["pingpong"] }], actions: [{ type: "setStatus", status: "waiting" }] });
    await createRule("pong", { name: "Pong", trigger: { type: "status_changed", to: "waiting" }, conditions: [{ type: "tags", any: ["pingpong"] }], actions: [{ type: "setOnHold", onHold: true }] });
    const pingpong = await newTicket("Ping pong", { tags: ["pingpong"] });
    await actions(pingpong, [{ type: "setOnHold", onHold: true }]);
    await eventually(async () => (await runs(`ticketId=${pingpong}`)).some((run) => run.outcome === "depth_limit"), 20_000);
    const chain = (await runs(`ticketId=${pingpong}`)).filter((run) => run.ruleName !== "Seen by rules").reverse();
    expect(chain.map((run) => [run.ruleName, run.outcome, run.depth])).toEqual([
      ["Ping", "applied", 0], ["Pong", "applied", 1], ["Ping", "applied", 2], ["Pong", "applied", 3], ["Ping", "applied", 4], ["Pong", "depth_limit", 5],
    ]);
    expect((await ticketOf(pingpong)).status).toBe("waiting");
    // The history per rule shows the same runs.
    expect((await runs(`ruleId=${rules.pong!.id}`)).map((run) => run.outcome)).toEqual(["depth_limit", "applied", "applied"]);
  });
});
