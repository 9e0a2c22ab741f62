// Settings → Webhooks over the real stack: an admin subscribes a local receiver, changes the
// subscription, sends a test event (the receiver gets it and the delivery log shows its answer),
// retries the delivery, rotates the secret and deletes the subscription, over the same webhooks
// RPCs as the public REST API. Agents get 403 on every operation, another company's subscription
// is 404, bad input is a 400 naming its path, and every change arrives in the company's audit log
// (recorded by the webhooks service, handed to content as webhooks.audit.recorded) with the admin
// as actor, before and after, and never a secret. Changes made with an API key are not audited.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@hooks.example`, abe: `abe-${suffix}@hooks.example`, oto: `oto-${suffix}@other.example` };

interface WebhookDto {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  gameIds: string[];
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
}
interface DeliveryDto {
  id: string;
  webhookId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
}
interface AuditEntryDto {
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  detail: Record<string, unknown>;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
let receiver: WebhookReceiver;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PATCH" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const listed = async (user: SignedInAgent) => {
  const response = await read(user, "/agent-api/settings/webhooks");
  expect(response.status, response.text).toBe(200);
  return (response.body as { webhooks: WebhookDto[] }).webhooks;
};
const deliveries = async (user: SignedInAgent, webhookId: string, query = "") => {
  const response = await read(user, `/agent-api/settings/webhooks/${webhookId}/deliveries${query}`);
  expect(response.status, response.text).toBe(200);
  return (response.body as { deliveries: DeliveryDto[] }).deliveries;
};
const webhookAudit = async () => {
  const response = await read(users.ada, "/agent-api/audit-log?action=webhook.&limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};

beforeAll(async () => {
  stack = await startStack();
  receiver = await startWebhookReceiver();
  tenant = await stack.applyTenant({
    company: { name: "Hooks Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
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
  await receiver?.stop();
  await stack?.stop();
});

const galaxy = () => tenant.games.galaxy!;

describe("webhooks in the settings", () => {
  it("creates, changes, tests, retries, rotates and deletes a subscription; each change in the audit log without a secret", async () => {
    const created = await write(users.ada, "POST", "/agent-api/settings/webhooks", {
      url: receiver.url, description: "Live-ops feed", eventTypes: ["ticket.created", "audit.recorded"], gameIds: [galaxy().id],
    });
    expect(created.status, created.text).toBe(201);
    const { webhook, secret } = created.body as { webhook: WebhookDto; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({ url: receiver.url, description: "Live-ops feed", eventTypes: ["ticket.created", "audit.recorded"], gameIds: [galaxy().id], enabled: true });
    expect((await listed(users.ada)).map((w) => w.id)).toEqual([webhook.id]);
    expect(JSON.stringify(await listed(users.ada))).not.toContain(secret);

    const changed = await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${webhook.id}`, { description: "Ops feed", eventTypes: ["ticket.created"], gameIds: [] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: webhook.id, description: "Ops feed", eventTypes: ["ticket.created"], gameIds: [] });
    // The same again changes nothing and records nothing.
    expect((await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${webhook.id}`, { description: "Ops feed" })).status).toBe(200);

    const test = await write(users.ada, "POST", `/agent-api/settings/webhooks/${webhook.id}/test`);
    expect(test.status, test.text).toBe(201);
    const delivery = test.body as DeliveryDto;
    expect(delivery).toMatchObject({ webhookId: webhook.id, eventType: "webhook.test", status: "pending" });
    await expect.poll(async () => (await deliveries(users.ada, webhook.id)).find((d) => d.id === delivery.id)?.status, { timeout: 30_000 }).toBe("succeeded");
    expect(receiver.received.some((request) => request.headers["webhook-id"] === delivery.id)).toBe(true);
    const logged = (await deliveries(users.ada, webhook.id, "?status=succeeded")).find((d) => d.id === delivery.id)!;
    expect(logged).toMatchObject({ attempts: 1, lastResponseStatus: 204 });
    expect(await deliveries(users.ada, webhook.id, "?status=failed")).toEqual([]);

    const retried = await write(users.ada, "POST", `/agent-api/settings/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ id: delivery.id, status: "pending" });
    await expect.poll(async () => (await deliveries(users.ada, webhook.id)).find((d) => d.id === delivery.id)?.attempts, { timeout: 30_000 }).toBe(2);

    const rotated = await write(users.ada, "POST", `/agent-api/settings/webhooks/${webhook.id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = (rotated.body as { secret: string }).secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect((rotated.body as { webhook: WebhookDto }).webhook.previousSecretExpiresAt).toEqual(expect.any(String));

    const deleted = await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${webhook.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect(await listed(users.ada)).toEqual([]);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${webhook.id}`)).status).toBe(404);

    // Content records the entries the webhooks service hands over: poll until all six are in.
    const expected = ["webhook.created", "webhook.updated", "webhook.test_sent", "webhook.delivery_retried", "webhook.secret_rotated", "webhook.deleted"];
    await expect
      .poll(async () => (await webhookAudit()).filter((entry) => entry.target?.id === webhook.id).map((entry) => entry.action).reverse(), { timeout: 30_000 })
      .toEqual(expected);
    const entries = (await webhookAudit()).filter((entry) => entry.target?.id === webhook.id);
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: { type: "user", id: users.ada.userId }, target: { type: "webhook", id: webhook.id }, clientAddress: expect.any(String) });
      expect(JSON.stringify(entry)).not.toContain(secret);
      expect(JSON.stringify(entry)).not.toContain(newSecret);
      expect(JSON.stringify(entry)).not.toContain("whsec_");
    }
    const byAction = (action: string) => entries.find((entry) => entry.action === action)!;
    expect(byAction("webhook.created")).toMatchObject({ before: null, after: { url: receiver.url, description: "Live-ops feed", eventTypes: ["ticket.created", "audit.recorded"], gameIds: [galaxy().id], enabled: true } });
    expect(byAction("webhook.updated")).toMatchObject({
      before: { description: "Live-ops feed", eventTypes: ["ticket.created", "audit.recorded"], gameIds: [galaxy().id] },
      after: { description: "Ops feed", eventTypes: ["ticket.created"], gameIds: [] },
    });
    expect(byAction("webhook.test_sent").detail).toMatchObject({ deliveryId: delivery.id });
    expect(byAction("webhook.delivery_retried").detail).toMatchObject({ deliveryId: delivery.id, previousStatus: "succeeded" });
    expect(byAction("webhook.secret_rotated").detail).toMatchObject({ previousSecretExpiresAt: expect.any(String) });
    expect(byAction("webhook.deleted")).toMatchObject({ before: { url: receiver.url, description: "Ops feed" }, after: null });
    // The other company's log has none of it.
    const theirs = await read(users.oto, "/agent-api/audit-log?action=webhook.");
    expect((theirs.body as { entries: AuditEntryDto[] }).entries).toEqual([]);
  });

  it("re-enables a subscription the service disabled, clearing its reason", async () => {
    const created = await write(users.ada, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"], enabled: false });
    expect(created.status, created.text).toBe(201);
    const { webhook } = created.body as { webhook: WebhookDto };
    expect(webhook).toMatchObject({ enabled: false, disabledReason: null });
    const enabled = await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${webhook.id}`, { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
    expect((await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${webhook.id}`)).status).toBe(204);
  });

  it("leaves changes made with an API key out of the audit log", async () => {
    const key = tenant.apiKeys.main!;
    const created = await stack.request("/webhooks", { method: "POST", key, json: { url: receiver.url, eventTypes: ["ticket.created"] } });
    expect(created.status, created.text).toBe(200);
    const id = (created.body as { webhook: WebhookDto }).webhook.id;
    expect((await listed(users.ada)).map((w) => w.id)).toContain(id);
    expect((await stack.request(`/webhooks/${id}`, { method: "DELETE", key })).status).toBe(200);
    // A change of the settings made after it is in the log; the API key's never came.
    const marker = await write(users.ada, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"] });
    const markerId = (marker.body as { webhook: WebhookDto }).webhook.id;
    await expect.poll(async () => (await webhookAudit()).some((entry) => entry.target?.id === markerId), { timeout: 30_000 }).toBe(true);
    expect((await webhookAudit()).filter((entry) => entry.target?.id === id)).toEqual([]);
    await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${markerId}`);
  });

  it("answers 404 for another company's subscription and delivery", async () => {
    const created = await write(users.oto, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"] });
    expect(created.status, created.text).toBe(201);
    const theirs = (created.body as { webhook: WebhookDto }).webhook;
    const test = await write(users.oto, "POST", `/agent-api/settings/webhooks/${theirs.id}/test`);
    const theirDelivery = (test.body as DeliveryDto).id;
    const attempts = [
      await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${theirs.id}`, { description: "Mine" }),
      await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${theirs.id}`),
      await write(users.ada, "POST", `/agent-api/settings/webhooks/${theirs.id}/rotate-secret`),
      await write(users.ada, "POST", `/agent-api/settings/webhooks/${theirs.id}/test`),
      await read(users.ada, `/agent-api/settings/webhooks/${theirs.id}/deliveries`),
      await write(users.ada, "POST", `/agent-api/settings/webhooks/${theirs.id}/deliveries/${theirDelivery}/retry`),
      await write(users.oto, "POST", `/agent-api/settings/webhooks/${theirs.id}/deliveries/${randomUUID()}/retry`),
    ];
    for (const attempt of attempts) expect(attempt.status, attempt.text).toBe(404);
    expect((await listed(users.ada)).map((w) => w.id)).not.toContain(theirs.id);
    expect((await listed(users.oto)).find((w) => w.id === theirs.id)).toMatchObject({ description: null });
  });

  it("answers 403 to an agent on every operation, before anything is read", async () => {
    const mine = await write(users.ada, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"] });
    const id = (mine.body as { webhook: WebhookDto }).webhook.id;
    const attempts = [
      await read(users.abe, "/agent-api/settings/webhooks"),
      await write(users.abe, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"] }),
      await write(users.abe, "PATCH", `/agent-api/settings/webhooks/${id}`, { description: "Sneaky" }),
      await write(users.abe, "DELETE", `/agent-api/settings/webhooks/${id}`),
      await write(users.abe, "POST", `/agent-api/settings/webhooks/${id}/rotate-secret`),
      await write(users.abe, "POST", `/agent-api/settings/webhooks/${id}/test`),
      await read(users.abe, `/agent-api/settings/webhooks/${id}/deliveries`),
      await write(users.abe, "POST", `/agent-api/settings/webhooks/${id}/deliveries/${randomUUID()}/retry`),
      // Another company's or an unknown subscription: the same 403, nothing is looked up.
      await write(users.abe, "DELETE", `/agent-api/settings/webhooks/${randomUUID()}`),
    ];
    for (const attempt of attempts) {
      expect(attempt.status, attempt.text).toBe(403);
      expect(attempt.body).toMatchObject({ code: "permission_denied" });
    }
    expect((await listed(users.ada)).find((w) => w.id === id)).toMatchObject({ description: null });
    await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${id}`);
  });

  it("answers bad input with 400 naming its path", async () => {
    const mine = await write(users.ada, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"] });
    const id = (mine.body as { webhook: WebhookDto }).webhook.id;
    const create = (body: Record<string, unknown>) => write(users.ada, "POST", "/agent-api/settings/webhooks", { url: receiver.url, eventTypes: ["ticket.created"], ...body });
    const cases: [StackResponse, string][] = [
      [await create({ url: "not a url" }), "/url"],
      [await create({ url: "ftp://example.com/hook" }), "/url"],
      [await create({ url: "http://user:pw@example.com/hook" }), "/url"],
      [await create({ eventTypes: [] }), "/eventTypes"],
      [await create({ eventTypes: ["ticket.exploded"] }), "/eventTypes/0"],
      [await create({ gameIds: [randomUUID()] }), "/gameIds/0"],
      [await create({ description: "x".repeat(501) }), "/description"],
      [await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${id}`, { eventTypes: ["nope"] }), "/eventTypes/0"],
      [await write(users.ada, "PATCH", `/agent-api/settings/webhooks/${id}`, { enabled: "yes" }), "/enabled"],
      [await read(users.ada, `/agent-api/settings/webhooks/${id}/deliveries?status=lost`), "/query/status"],
      [await read(users.ada, `/agent-api/settings/webhooks/${id}/deliveries?cursor=forged`), "/query/cursor"],
    ];
    for (const [response, path] of cases) {
      expect(response.status, response.text).toBe(400);
      expect(issuePaths(response), response.text).toContain(path);
    }
    expect((await write(users.ada, "PATCH", "/agent-api/settings/webhooks/not-a-uuid", { description: "x" })).status).toBe(400);
    expect((await listed(users.ada)).filter((w) => w.id !== id).length).toBe(0);
    await write(users.ada, "DELETE", `/agent-api/settings/webhooks/${id}`);
  });
});
