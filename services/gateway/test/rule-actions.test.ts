// A rule's own actions end to end (docs/automation.md, "Rules"): sendCannedResponse sends a canned
// response of content, rendered by content in the ticket's language with the ticket's values, to
// the player as the rule's message (visible in the player's conversation) with the response's
// own actions; callWebhook makes the webhooks service post the ticket to a local receiver, signed
// with the company's rule signing secret that the admin reads (and rotates) in the settings. A
// canned response deleted after the rule was saved makes a failed run; an unknown one, a URL the
// webhooks would not send to, or a bad shape is a 400 naming each path; a tenant file may name the
// canned response by its name.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@rule-actions.example`, abe: `abe-${suffix}@rule-actions.example` };

interface RuleDto {
  id: string;
  name: string;
  actions: Record<string, unknown>[];
}
interface RunDto {
  ruleId: string;
  ticketId: string;
  outcome: string;
  actions: Record<string, unknown>[];
  error: string | null;
}
interface SecretDto {
  secret: string;
  previousSecretExpiresAt: string | null;
  updatedAt: string;
}
interface RuleCallBody {
  type: string;
  timestamp: string;
  data: { ruleId: string; ruleName: string; ticketId: string; runningId: number; gameId: string; ticket: Record<string, unknown> };
}

let stack: Stack;
let tenant: TenantResult;
let receiver: WebhookReceiver;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (path: string) => agentRead(stack, users.ada, path);
const write = (method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, json?: unknown) => agentWrite(stack, users.ada, method, path, json);
const ok = (response: StackResponse, status = 200) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};
const runsOf = async (ruleId: string) => (ok(await read(`/agent-api/settings/rule-runs?ruleId=${ruleId}`)) as { runs: RunDto[] }).runs;
const apiTicket = async (ticketId: string) => {
  const [ticket] = (ok(await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })) as { tickets: Record<string, unknown>[] }).tickets;
  return ticket!;
};
/** A ticket the player opens from a support session of the game, in `language`. */
const playerTicket = async (language: string, name: string, message: string) => {
  const token = tenant.games.galaxy!.environments.production!.token;
  const session = ok(await stack.request("/support/sessions", { method: "POST", json: { token, language, player: { id: `p-${randomUUID()}`, name } } })) as { sessionCode: string };
  const opened = ok(await stack.request("/player-api/tickets", { method: "POST", headers: { authorization: `Session ${session.sessionCode}` }, json: { message } })) as { ticketId: string; runningId: number };
  return { ...opened, sessionCode: session.sessionCode };
};
const playerEvents = async (ticketId: string, sessionCode: string) =>
  (ok(await stack.request(`/player-api/tickets/${ticketId}/events`, { headers: { authorization: `Session ${sessionCode}` } })) as { events: { type: string; message?: string }[] }).events;
const cannedResponse = async (name: string, texts: Record<string, string>, actions: Record<string, unknown> = {}) =>
  (ok(await write("POST", "/agent-api/canned-responses", { name, texts, actions }), 201) as { id: string }).id;

const tenantFile = {
  company: { name: "Rule Actions Studio" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "production", name: "production" }] }],
  tags: [{ name: "answered", game: null }, { name: "called", game: null }],
  users: [
    { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
    { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
  ],
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack();
  tenant = await stack.applyTenant(tenantFile);
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
});

describe("checking a rule's own actions when it is saved", () => {
  it("refuses an unknown canned response, a URL the webhooks would not send to and bad shapes, each at its path", async () => {
    const refused = await write("POST", "/agent-api/settings/rules", {
      name: "Broken",
      trigger: { type: "ticket_created" },
      actions: [
        { type: "sendCannedResponse", cannedResponseId: randomUUID() },
        { type: "callWebhook", url: "https://169.254.169.254/latest/meta-data" },
        { type: "addTags", tagNames: ["answered"] },
        { type: "callWebhook", url: "ftp://example.com/hook" },
      ],
    });
    expect(refused.status, refused.text).toBe(400);
    expect(issuePaths(refused)).toEqual(["/actions/0/cannedResponseId", "/actions/1/url", "/actions/3/url"]);
    const shapes = await write("POST", "/agent-api/settings/rules", {
      name: "Shapes",
      trigger: { type: "ticket_created" },
      actions: [{ type: "callWebhook", url: "https://example.com/hook", secret: "x" }, { type: "setStatus", status: "closed" }],
    });
    expect(shapes.status, shapes.text).toBe(400);
    expect(issuePaths(shapes)).toEqual(["/actions/0/secret", "/actions/1/status"]);
    // The ticket actions' own checks keep the rule's indexes.
    const statuses = await write("POST", "/agent-api/settings/rules", {
      name: "Statuses",
      trigger: { type: "ticket_created" },
      actions: [{ type: "callWebhook", url: receiver.url }, { type: "setStatus", status: "closed" }],
    });
    expect(issuePaths(statuses)).toEqual(["/actions/1/status"]);
    expect((await agentRead(stack, users.abe, "/agent-api/settings/rule-signing-secret")).status).toBe(403);
    expect((ok(await read("/agent-api/settings/rules")) as { rules: unknown[] }).rules).toEqual([]);
  });
});

describe("sendCannedResponse", () => {
  let rule: RuleDto;
  let cannedId: string;

  it("sends the canned response in the ticket's language with its values to the player, with its own actions, as the rule", async () => {
    cannedId = await cannedResponse(
      `Welcome ${suffix}`,
      { en: "Hello {{player.name}}, ticket {{ticket.number}} of {{game.name}} is with us.", de: "Hallo {{player.name}}, Ticket {{ticket.number}} von {{game.name}} ist bei uns." },
      { addTags: ["answered"], status: "waiting" },
    );
    rule = ok(await write("POST", "/agent-api/settings/rules", { name: "Welcome", trigger: { type: "ticket_created" }, actions: [{ type: "sendCannedResponse", cannedResponseId: cannedId }] }), 201) as RuleDto;
    expect(rule.actions).toEqual([{ type: "sendCannedResponse", cannedResponseId: cannedId }]);

    const { ticketId, runningId, sessionCode } = await playerTicket("de", "Jonas", "Mein Schiff ist weg");
    await eventually(async () => (await runsOf(rule.id)).some((run) => run.ticketId === ticketId), 20_000);
    const [run] = (await runsOf(rule.id)).filter((candidate) => candidate.ticketId === ticketId);
    expect(run).toMatchObject({ outcome: "applied", error: null, actions: [{ type: "sendCannedResponse", cannedResponseId: cannedId }] });
    // The player sees it in their conversation, in German, with their name, the number and the game.
    expect((await playerEvents(ticketId, sessionCode)).map((event) => [event.type, event.message])).toEqual([
      ["PLAYER_MESSAGE", "Mein Schiff ist weg"],
      ["AGENT_MESSAGE", `Hallo Jonas, Ticket ${runningId} von Galaxy ist bei uns.`],
    ]);
    // The response's own actions applied; the console shows the message as the rule's.
    expect(await apiTicket(ticketId)).toMatchObject({ tags: ["answered"], status: "waiting" });
    const view = ok(await read(`/agent-api/tickets/${ticketId}`)) as { conversation: { event: { type: string }; author: { type: string; id: string | null } }[] };
    expect(view.conversation.find((entry) => entry.event.type === "AGENT_MESSAGE")!.author).toEqual({ type: "system", id: `rule:${rule.id}` });
  });

  it("records a failed run with the reason when the canned response was deleted since", async () => {
    expect((await write("DELETE", `/agent-api/canned-responses/${cannedId}`)).status).toBe(204);
    const { ticketId, sessionCode } = await playerTicket("en", "Pat", "Where is my ship?");
    await eventually(async () => (await runsOf(rule.id)).some((run) => run.ticketId === ticketId), 20_000);
    const [run] = (await runsOf(rule.id)).filter((candidate) => candidate.ticketId === ticketId);
    expect(run!.outcome).toBe("failed");
    expect(run!.error).toBe(`canned response ${cannedId} of /actions/0 is not found: deleted, or not for this ticket's game`);
    expect((await playerEvents(ticketId, sessionCode)).map((event) => event.type)).toEqual(["PLAYER_MESSAGE"]);
    // Saved again, the rule is refused: the response is gone.
    const saved = await write("PATCH", `/agent-api/settings/rules/${rule.id}`, { name: "Welcome again" });
    expect(issuePaths(saved)).toEqual(["/actions/0/cannedResponseId"]);
    expect((await write("DELETE", `/agent-api/settings/rules/${rule.id}`)).status).toBe(204);
  });
});

describe("callWebhook", () => {
  it("posts the ticket as the rule left it, signed with the rule signing secret the admin sees; a rotation signs with both", async () => {
    const first = ok(await read("/agent-api/settings/rule-signing-secret")) as SecretDto;
    expect(first.secret).toMatch(/^whsec_/);
    expect(first.previousSecretExpiresAt).toBeNull();
    // The same secret at every read.
    expect((ok(await read("/agent-api/settings/rule-signing-secret")) as SecretDto).secret).toBe(first.secret);

    const rule = ok(
      await write("POST", "/agent-api/settings/rules", { name: "Notify", trigger: { type: "ticket_created" }, actions: [{ type: "addTags", tagNames: ["called"] }, { type: "callWebhook", url: receiver.url }] }),
      201,
    ) as RuleDto;
    const { ticketId, runningId } = await playerTicket("en", "Lee", "The hangar door is stuck");
    await eventually(async () => receiver.received.some((request) => request.body.includes(ticketId)), 30_000);
    const call = receiver.received.find((request) => request.body.includes(ticketId))!;
    const body = new Webhook(first.secret).verify(call.body, call.headers) as RuleCallBody;
    expect(body.type).toBe("rule.webhook");
    expect(body.data).toMatchObject({ ruleId: rule.id, ruleName: "Notify", ticketId, runningId, gameId: tenant.games.galaxy!.id });
    // The public ticket (as GET /tickets lists it), after the rule's own tag.
    expect(body.data.ticket).toEqual(await apiTicket(ticketId));
    expect(body.data.ticket.tags).toEqual(["called"]);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(call.body, call.headers)).toThrow();
    expect((await runsOf(rule.id)).find((run) => run.ticketId === ticketId)).toMatchObject({ outcome: "applied", error: null });

    const rotated = ok(await write("POST", "/agent-api/settings/rule-signing-secret/rotate")) as SecretDto;
    expect(rotated.secret).not.toBe(first.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt!)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const next = await playerTicket("en", "Kim", "Lost my cargo");
    await eventually(async () => receiver.received.some((request) => request.body.includes(next.ticketId)), 30_000);
    const signed = receiver.received.find((request) => request.body.includes(next.ticketId))!;
    expect(signed.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect((new Webhook(rotated.secret).verify(signed.body, signed.headers) as RuleCallBody).data.ticketId).toBe(next.ticketId);
    expect((new Webhook(first.secret).verify(signed.body, signed.headers) as RuleCallBody).data.ticketId).toBe(next.ticketId);
    // The rotation is in the audit log, without the secret.
    const audit = ok(await read("/agent-api/audit-log?action=webhook.&limit=50"));
    expect(JSON.stringify(audit)).toContain("webhook.secret_rotated");
    expect(JSON.stringify(audit)).not.toContain(rotated.secret);
    // The rule calls' subscription is not one of the company's webhooks.
    expect((ok(await read("/agent-api/settings/webhooks")) as { webhooks: unknown[] }).webhooks).toEqual([]);
    expect((await write("DELETE", `/agent-api/settings/rules/${rule.id}`)).status).toBe(204);
  });
});

describe("the tenant file", () => {
  it("takes both actions, the canned response by its id or its name, and names a bad one by its path in the file", async () => {
    const named = `Outage ${suffix}`;
    const cannedId = await cannedResponse(named, { en: "We know, {{player.name}}: a fix is on its way." });
    const apply = (actions: unknown[]) =>
      stack.admin(["apply", "--company", tenant.companyId, "-"], JSON.stringify({ ...tenantFile, rules: [{ name: "File reply", trigger: { type: "ticket_created" }, actions }] }));
    await expect(apply([{ type: "sendCannedResponse", cannedResponse: "No such reply" }, { type: "callWebhook", url: "http://user:pw@example.com/" }])).rejects.toThrow(
      /rules\/0\/actions\/0\/cannedResponse[\s\S]*rules\/0\/actions\/1\/url|rules\/0\/actions\/1\/url[\s\S]*rules\/0\/actions\/0\/cannedResponse/,
    );
    await apply([{ type: "sendCannedResponse", cannedResponse: named }, { type: "callWebhook", url: receiver.url }]);
    const [rule] = (ok(await read("/agent-api/settings/rules")) as { rules: RuleDto[] }).rules;
    expect(rule).toMatchObject({ name: "File reply", actions: [{ type: "sendCannedResponse", cannedResponseId: cannedId }, { type: "callWebhook", url: receiver.url }] });
    // Applied again, by id this time: the same rule, unchanged.
    await apply([{ type: "sendCannedResponse", cannedResponseId: cannedId }, { type: "callWebhook", url: receiver.url }]);
    expect((ok(await read("/agent-api/settings/rules")) as { rules: RuleDto[] }).rules.map((listed) => listed.id)).toEqual([rule!.id]);

    const { ticketId, sessionCode } = await playerTicket("en", "Rae", "Servers down?");
    await eventually(async () => receiver.received.some((request) => request.body.includes(ticketId)), 30_000);
    expect((await playerEvents(ticketId, sessionCode)).map((event) => event.message)).toEqual(["Servers down?", "We know, Rae: a fix is on its way."]);
  });
});

describe("a platform that does not allow private targets (as in production)", () => {
  let strict: Stack;
  afterAll(async () => {
    await strict?.stop();
  });

  it("refuses a rule whose URL is a private address, at its path", async () => {
    strict = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" } });
    await strict.applyTenant({ company: { name: "Strict Studio" }, users: [{ ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" }] });
    await strict.admin(["users", "set-password", "--email", emails.ada], `${PASSWORD}\n`);
    const ada = await signInAgent(strict, emails.ada, PASSWORD);
    const refused = await agentWrite(strict, ada, "POST", "/agent-api/settings/rules", {
      name: "Inside",
      trigger: { type: "ticket_created" },
      actions: [{ type: "callWebhook", url: "https://93.184.215.14/public" }, { type: "callWebhook", url: receiver.url }, { type: "callWebhook", url: "http://10.0.0.7/hook" }],
    });
    expect(refused.status, refused.text).toBe(400);
    expect(issuePaths(refused)).toEqual(["/actions/1/url", "/actions/2/url"]);
    expect(refused.text).toContain("private address");
  }, 120_000);
});
