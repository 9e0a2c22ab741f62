// The company settings over the real stack: an admin creates an API key (the secret shown once),
// the key opens the public API, its last use reaches the list, revoking it closes the API at
// once on every replica; an agent and another company's admin get nothing. The audit log
// records each change with its actor — the admin, `pnpm admin` (an operator), a tenant file,
// a sign-in — filters it, exports it as CSV and JSON, and publishes each entry as an event.
import { randomUUID } from "node:crypto";
import { connectBus, type NatsConnection } from "@support/bus";
import { startWebhookReceiver } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@studio.example`, abe: `abe-${suffix}@studio.example`, oto: `oto-${suffix}@other.example` };

interface ApiKeyDto {
  id: string;
  name: string;
  keyPrefix: string;
  createdBy: { type: string; id: string | null; name: string | null };
  lastUsedAt: string | null;
  rateLimitPerMinute: number | null;
  effectiveRateLimitPerMinute: number;
  revokedAt: string | null;
}
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
let other: TenantResult;
let observer: NatsConnection;
const published: { type: string; companyId: string; data: Record<string, unknown> }[] = [];
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const origin = () => new URL(stack.url).origin;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const auditLog = async (user: SignedInAgent, query = "") => {
  const response = await read(user, `/agent-api/audit-log${query}`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};

beforeAll(async () => {
  stack = await startStack({ gateway: { API_KEY_USE_REPORT_MS: 200 } });
  observer = await connectBus(stack.infra.natsUrl, "audit-observer");
  const subscription = observer.subscribe(`${stack.infra.natsPrefix}content.audit.>`);
  void (async () => {
    for await (const message of subscription) published.push(message.json());
  })();
  tenant = await stack.applyTenant({
    company: { name: "Settings Studio", apiRateLimitPerMinute: 600 },
    apiKeys: [{ name: "from the file" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  other = await stack.applyTenant({ company: { name: "Other Studio" }, users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }] });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await observer?.drain();
  await stack?.stop();
});

describe("API keys in the settings", () => {
  it("creates a key that opens the public API, shows its last use, and revokes it at once on every replica", async () => {
    const replica = await stack.startGateway({}, { nats: true });
    const created = await write(users.ada, "POST", "/agent-api/settings/api-keys", { name: "Game backend", rateLimitPerMinute: 120 });
    expect(created.status, created.text).toBe(201);
    const { apiKey, secret } = created.body as { apiKey: ApiKeyDto; secret: string };
    expect(secret).toMatch(/^psk_/);
    expect(secret.startsWith(apiKey.keyPrefix)).toBe(true);
    expect(apiKey).toMatchObject({
      name: "Game backend", createdBy: { type: "user", id: users.ada.userId, name: "Ada Admin" }, lastUsedAt: null,
      rateLimitPerMinute: 120, effectiveRateLimitPerMinute: 120, revokedAt: null,
    });

    // The secret works on both replicas at once, and is never listed.
    expect((await stack.request("/games", { key: secret })).status).toBe(200);
    expect((await replica.request("/games", { key: secret })).status).toBe(200);
    const listed = await read(users.ada, "/agent-api/settings/api-keys");
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).not.toContain(secret);
    const keys = (listed.body as { apiKeys: ApiKeyDto[] }).apiKeys;
    expect(keys.map((key) => key.name)).toEqual(["Game backend", "from the file"]);
    // The file's key: an operator's, held to the company's limit.
    expect(keys[1]).toMatchObject({ createdBy: { type: "operator", id: null, name: null }, rateLimitPerMinute: null, effectiveRateLimitPerMinute: 600 });
    // The gateways report the key's use (every 200 ms here), to the minute.
    await expect
      .poll(async () => ((await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys[0]!.lastUsedAt, { timeout: 5000 })
      .toMatch(/:00\.000Z$/);

    const revoked = await write(users.ada, "DELETE", `/agent-api/settings/api-keys/${apiKey.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect((revoked.body as ApiKeyDto).revokedAt).not.toBeNull();
    // Both replicas refuse it right after the answer (the revocation event evicts their caches).
    await expect.poll(async () => (await stack.request("/games", { key: secret })).status, { timeout: 2000, interval: 20 }).toBe(403);
    await expect.poll(async () => (await replica.request("/games", { key: secret })).status, { timeout: 2000, interval: 20 }).toBe(403);
    // Revoking again answers the key unchanged; the list shows the revoked key last.
    expect(((await write(users.ada, "DELETE", `/agent-api/settings/api-keys/${apiKey.id}`)).body as ApiKeyDto).revokedAt).toBe((revoked.body as ApiKeyDto).revokedAt);
    const after = ((await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys;
    expect(after.map((key) => [key.name, key.revokedAt === null])).toEqual([["from the file", true], ["Game backend", false]]);
  });

  it("refuses bad input with the field's path, and writes nothing", async () => {
    const before = ((await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys.length;
    for (const body of [{ name: "" }, { name: "x", rateLimitPerMinute: 0 }, { name: "x", extra: true }, {}]) {
      const refused = await write(users.ada, "POST", "/agent-api/settings/api-keys", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_argument" });
    }
    expect(((await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys).toHaveLength(before);
  });

  it("answers an agent 403 on every settings operation, and another company's admin 404 for this company's key", async () => {
    const { apiKeys } = (await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] };
    const key = apiKeys.find((candidate) => candidate.revokedAt === null)!;
    const refusals = [
      await read(users.abe, "/agent-api/settings/api-keys"),
      await write(users.abe, "POST", "/agent-api/settings/api-keys", { name: "agent's key" }),
      await write(users.abe, "DELETE", `/agent-api/settings/api-keys/${key.id}`),
      await read(users.abe, "/agent-api/audit-log"),
      await read(users.abe, "/agent-api/audit-log/export?format=csv"),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toMatchObject({ code: "permission_denied" });
    }
    expect((await write(users.oto, "DELETE", `/agent-api/settings/api-keys/${key.id}`)).status).toBe(404);
    const theirs = ((await read(users.oto, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys;
    expect(theirs).toEqual([]);
    // Without the CSRF token, nothing is created.
    const forged = await stack.request("/agent-api/settings/api-keys", { method: "POST", headers: { cookie: users.ada.cookie, origin: origin() }, json: { name: "forged" } });
    expect(forged.status).toBe(403);
    expect(((await read(users.ada, "/agent-api/settings/api-keys")).body as { apiKeys: ApiKeyDto[] }).apiKeys.map((k) => k.name)).not.toContain("forged");
  });
});

describe("the audit log", () => {
  it("records the actor of settings, admin-tool, tenant-file and sign-in changes, with before and after", async () => {
    const cli = await stack.admin<{ apiKeyId: string }>(["api-keys", "create", "--company", tenant.companyId, "--name", "from the tool"]);
    await stack.admin(["api-keys", "revoke", cli.apiKeyId]);
    const entries = await auditLog(users.ada, "?limit=200");
    const byAction = (action: string) => entries.filter((entry) => entry.action === action);

    const tool = entries.filter((entry) => entry.target?.id === cli.apiKeyId);
    expect(tool.map((entry) => [entry.action, entry.actor.type])).toEqual([["api_key.revoked", "operator"], ["api_key.created", "operator"]]);
    expect(tool[0]).toMatchObject({ before: { revokedAt: null, name: "from the tool" }, after: { revokedAt: expect.any(String), name: "from the tool" } });

    const dashboard = byAction("api_key.created").find((entry) => entry.after?.name === "Game backend")!;
    expect(dashboard).toMatchObject({ actor: { type: "user", id: users.ada.userId, name: "Ada Admin" }, before: null, after: { name: "Game backend", rateLimitPerMinute: 120 } });
    expect(dashboard.clientAddress).toMatch(/127\.0\.0\.1/);

    expect(byAction("tenant.applied")).toEqual([
      expect.objectContaining({ actor: { type: "operator", id: null, name: null }, target: { type: "company", id: tenant.companyId }, after: expect.objectContaining({ apiKeys: ["from the file"], users: [emails.ada, emails.abe] }) }),
    ]);
    const signIns = byAction("sign_in.succeeded");
    expect(signIns.map((entry) => entry.actor.id).sort()).toEqual([users.abe.userId, users.ada.userId].sort());
    // No secret and no key hash anywhere in the log.
    expect(JSON.stringify(entries)).not.toMatch(/psk_[A-Za-z0-9_-]{20,}|[0-9a-f]{64}/);
    // Another company's log holds none of it.
    expect((await auditLog(users.oto, "?limit=200")).filter((entry) => entry.action.startsWith("api_key."))).toEqual([]);
  });

  it("filters by action family, actor, target type and time, and refuses bad filters", async () => {
    const keys = await auditLog(users.ada, "?action=api_key.");
    expect(keys.length).toBeGreaterThanOrEqual(4);
    expect(keys.every((entry) => entry.action.startsWith("api_key."))).toBe(true);
    const byAda = await auditLog(users.ada, `?actorId=${users.ada.userId}`);
    expect(byAda.length).toBeGreaterThan(0);
    expect(byAda.every((entry) => entry.actor.id === users.ada.userId)).toBe(true);
    expect((await auditLog(users.ada, "?targetType=company")).map((entry) => entry.action)).toEqual(["tenant.applied"]);
    expect(await auditLog(users.ada, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    const exact = await auditLog(users.ada, "?action=api_key.revoked");
    expect(exact.every((entry) => entry.action === "api_key.revoked")).toBe(true);
    for (const query of ["?action=DROP%20TABLE", "?actorId=nobody", "?since=yesterday", `?since=${encodeURIComponent(new Date().toISOString())}&until=${encodeURIComponent(new Date(Date.now() - 1000).toISOString())}`]) {
      const refused = await read(users.ada, `/agent-api/audit-log${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_argument" });
    }
  });

  it("exports the filtered log as CSV and as JSON", async () => {
    const json = await read(users.ada, "/agent-api/audit-log/export?format=json&action=api_key.");
    expect(json.status, json.text).toBe(200);
    expect(json.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.json"$/);
    const exported = json.body as AuditEntryDto[];
    expect(exported).toEqual(await auditLog(users.ada, "?action=api_key.&limit=200"));

    const csv = await read(users.ada, "/agent-api/audit-log/export?format=csv&action=api_key.");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = csv.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,createdAt,action,actorType,actorId,actorName,userId,targetType,targetId,clientAddress,before,after,detail");
    expect(lines).toHaveLength(exported.length + 1);
    expect(lines[1]!.startsWith(`${exported[0]!.id},`)).toBe(true);
    expect(csv.text).toContain('"{""name"":""Game backend""');
    expect((await read(users.ada, "/agent-api/audit-log/export?format=xml")).status).toBe(400);
  });

  it("publishes every entry of a company as content.audit.recorded", async () => {
    const entries = await auditLog(users.ada, "?limit=200");
    await expect.poll(() => published.filter((event) => event.companyId === tenant.companyId).length, { timeout: 5000 }).toBeGreaterThanOrEqual(entries.length);
    const ids = new Set(published.filter((event) => event.type === "content.audit.recorded" && event.companyId === tenant.companyId).map((event) => event.data.auditEntryId));
    for (const entry of entries) expect(ids.has(entry.id), entry.action).toBe(true);
    expect(published.some((event) => event.companyId === other.companyId && event.data.action === "api_key.created")).toBe(false);
  });

  it("reaches a studio's webhook subscribed to audit.recorded, whatever the subscription's games", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const subscribed = await stack.request("/webhooks", {
        method: "POST",
        key: tenant.apiKeys["from the file"]!,
        json: { url: receiver.url, eventTypes: ["audit.recorded"], gameIds: [tenant.games.galaxy!.id] },
      });
      expect(subscribed.status, subscribed.text).toBe(200);
      const created = await write(users.ada, "POST", "/agent-api/settings/api-keys", { name: "Forwarded" });
      const { apiKey, secret } = created.body as { apiKey: ApiKeyDto; secret: string };
      await expect.poll(() => receiver.bodies().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
      const [entry] = (await auditLog(users.ada, "?action=api_key.created&limit=1"));
      expect(receiver.bodies()).toContainEqual({
        type: "audit.recorded",
        timestamp: expect.any(String),
        data: {
          id: entry!.id, action: "api_key.created", userId: null, actor: { type: "user", id: users.ada.userId }, target: { type: "api_key", id: apiKey.id },
          before: null, after: expect.objectContaining({ name: "Forwarded", revokedAt: null }), detail: {}, clientAddress: entry!.clientAddress, createdAt: expect.any(String),
        },
      });
      expect(JSON.stringify(receiver.bodies())).not.toContain(secret);
    } finally {
      await receiver.stop();
    }
  });
});

describe("tags and custom fields in the settings", () => {
  const act = (user: SignedInAgent, ticketId: string, actions: unknown[]) => write(user, "POST", `/agent-api/tickets/${ticketId}/actions`, { actions });
  const newTicket = async () => {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys["from the file"]!,
      json: { gameId: tenant.games.galaxy!.id, message: "The shield breaks", language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 6)}`, email: "pat@example.com" } } },
    });
    expect(created.status, created.text).toBe(200);
    return (created.body as { ticketId: string }).ticketId;
  };
  const ticketOf = async (ticketId: string) => ((await read(users.ada, `/agent-api/tickets/${ticketId}`)).body as { ticket: { tags: string[]; fields: Record<string, unknown> } }).ticket;

  it("creates, changes and retires a tag: tickets keep it, no new ticket gets it, its name is free again", async () => {
    const created = await write(users.ada, "POST", "/agent-api/settings/tags", { name: "shield", gameId: tenant.games.galaxy!.id, description: "Shield bugs", isSkill: true });
    expect(created.status, created.text).toBe(201);
    const tag = created.body as { id: string; name: string; isSkill: boolean };
    expect(tag).toMatchObject({ name: "shield", isSkill: true, isAiTag: false, description: "Shield bugs", gameId: tenant.games.galaxy!.id });
    expect((await write(users.ada, "POST", "/agent-api/settings/tags", { name: "shield", gameId: tenant.games.galaxy!.id })).status).toBe(409);
    expect((await write(users.ada, "POST", "/agent-api/settings/tags", { name: "a,b" })).status).toBe(400);

    const changed = await stack.request(`/agent-api/settings/tags/${tag.id}`, {
      method: "PUT", headers: { cookie: users.ada.cookie, origin: origin(), "x-csrf-token": users.ada.csrfToken }, json: { description: "Shield and armour bugs", isSkill: false },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: "shield", description: "Shield and armour bugs", isSkill: false });

    const ticketId = await newTicket();
    expect((await act(users.ada, ticketId, [{ type: "addTags", tagNames: ["shield"] }])).status).toBe(200);
    const retired = await write(users.ada, "DELETE", `/agent-api/settings/tags/${tag.id}`);
    expect(retired.status, retired.text).toBe(200);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/tags/${tag.id}`)).status).toBe(404);
    const listed = ((await read(users.ada, "/agent-api/settings/tags")).body as { tags: { name: string }[] }).tags;
    expect(listed.map((t) => t.name)).not.toContain("shield");
    // The ticket keeps it; another ticket cannot get it (the tickets service's cache was evicted by the event).
    expect((await ticketOf(ticketId)).tags).toEqual(["shield"]);
    const other = await newTicket();
    await expect.poll(async () => (await act(users.ada, other, [{ type: "addTags", tagNames: ["shield"] }])).status, { timeout: 5000 }).toBe(400);
    // The name is free again.
    expect((await write(users.ada, "POST", "/agent-api/settings/tags", { name: "shield", gameId: tenant.games.galaxy!.id })).status).toBe(201);

    const entries = await auditLog(users.ada, "?action=tag.");
    expect(entries.filter((entry) => entry.target?.id === tag.id).map((entry) => [entry.action, entry.actor.id])).toEqual([
      ["tag.retired", users.ada.userId], ["tag.updated", users.ada.userId], ["tag.created", users.ada.userId],
    ]);
    const update = entries.find((entry) => entry.action === "tag.updated")!;
    expect(update.before).toMatchObject({ description: "Shield bugs", isSkill: true });
    expect(update.after).toMatchObject({ description: "Shield and armour bugs", isSkill: false });
  });

  it("creates, changes and retires a dropdown field: values tickets hold stay, no ticket gets a new one", async () => {
    const created = await write(users.ada, "POST", "/agent-api/settings/fields", { key: "platform", name: "Platform", type: "dropdown", options: ["PC", "Switch"] });
    expect(created.status, created.text).toBe(201);
    const field = created.body as { id: string };
    for (const [body, path] of [
      [{ key: "bad key", name: "X", type: "text" }, "\"/key\""],
      [{ key: "empty", name: "X", type: "dropdown", options: [] }, "/options"],
      [{ key: "opts", name: "X", type: "text", options: ["a"] }, "/options"],
    ] as const) {
      const refused = await write(users.ada, "POST", "/agent-api/settings/fields", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(refused.body), JSON.stringify(refused.body)).toContain(path);
    }
    const changed = await stack.request(`/agent-api/settings/fields/${field.id}`, {
      method: "PUT", headers: { cookie: users.ada.cookie, origin: origin(), "x-csrf-token": users.ada.csrfToken }, json: { name: "Device", options: ["PC", "Switch", "Mobile"] },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ key: "platform", name: "Device", type: "dropdown", options: ["PC", "Switch", "Mobile"] });

    const ticketId = await newTicket();
    await expect.poll(async () => (await act(users.ada, ticketId, [{ type: "setFields", fields: { platform: "Mobile" } }])).status, { timeout: 5000 }).toBe(200);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/fields/${field.id}`)).status).toBe(200);
    expect((await ticketOf(ticketId)).fields).toMatchObject({ platform: "Mobile" });
    await expect.poll(async () => (await act(users.ada, ticketId, [{ type: "setFields", fields: { platform: "PC" } }])).status, { timeout: 5000 }).toBe(400);
    expect(((await read(users.ada, "/agent-api/settings/fields")).body as { fields: { key: string }[] }).fields.map((f) => f.key)).not.toContain("platform");
    const entries = await auditLog(users.ada, "?action=field.");
    expect(entries.filter((entry) => entry.target?.id === field.id).map((entry) => entry.action)).toEqual(["field.retired", "field.updated", "field.created"]);
  });

  it("lists each user's games by name (GET /agent-api/games)", async () => {
    const games = (user: SignedInAgent) => read(user, "/agent-api/games").then((r) => (r.body as { games: { id: string; name: string; languages: string[] }[] }).games);
    expect(await games(users.abe)).toEqual([{ id: tenant.games.galaxy!.id, name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], routingEnabled: false }]);
    expect((await games(users.ada)).map((game) => game.name)).toEqual(["Galaxy"]);
    expect(await games(users.oto)).toEqual([]);
  });

  it("answers an agent 403 and another company's admin 404", async () => {
    const { tags } = (await read(users.ada, "/agent-api/settings/tags")).body as { tags: { id: string }[] };
    const tagId = tags[0]!.id;
    for (const refused of [
      await read(users.abe, "/agent-api/settings/tags"),
      await read(users.abe, "/agent-api/settings/fields"),
      await write(users.abe, "POST", "/agent-api/settings/tags", { name: "agent's" }),
      await write(users.abe, "DELETE", `/agent-api/settings/tags/${tagId}`),
      await write(users.abe, "POST", "/agent-api/settings/fields", { key: "k", name: "K", type: "text" }),
    ]) {
      expect(refused.status, refused.text).toBe(403);
    }
    expect((await write(users.oto, "DELETE", `/agent-api/settings/tags/${tagId}`)).status).toBe(404);
    expect((await write(users.oto, "POST", "/agent-api/settings/tags", { name: "x", gameId: tenant.games.galaxy!.id })).status).toBe(404);
  });
});
