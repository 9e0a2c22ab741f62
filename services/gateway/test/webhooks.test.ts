// Webhooks through the REST API of the real stack (gateway, content, players, tickets,
// webhooks) and the admin tool: a subscription to a receiver on this machine gets the
// `ticket.created` of a ticket made with POST /tickets, signed the Standard Webhooks way (checked
// with the typed client's verifier), and the delivery log shows it succeeded. Every answer is
// also checked against the OpenAPI document.
// The typed client from its source: not a package dependency (its own tests depend on the gateway).
import { verifyWebhook, WebhookVerificationError } from "../../../clients/typescript/src/index.ts";
import { startWebhookReceiver, type WebhookReceiver } from "@support/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";

const tenant = (name: string, webhooks?: Record<string, unknown>[]) => ({
  company: { name, primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [
    { ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${name.toLowerCase()}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] },
    { ref: "farm", name: "Pixel Farm", slug: `farm-${name.toLowerCase()}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] },
  ],
  ...(webhooks ? { webhooks } : {}),
});

interface WebhookDto {
  id: string;
  url: string;
  source: string;
  gameIds: string[];
  enabled: boolean;
  [key: string]: unknown;
}

interface DeliveryDto {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  payload: { type: string; data: Record<string, unknown> };
}

describe("webhooks through the real stack", () => {
  let stack: Stack;
  let receiver: WebhookReceiver;
  let a: TenantResult & { webhooks?: { url: string; id: string; action: string; secret?: string }[] };
  let b: TenantResult;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack();
    a = await stack.applyTenant(tenant("Alpha"));
    b = await stack.applyTenant(tenant("Beta"));
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
  });

  it("delivers ticket.created of POST /tickets to a subscription, signed, and logs it as succeeded", async () => {
    const key = a.apiKeys.main!;
    const galaxy = a.games.galaxy!.id;
    const created = await stack.request("/webhooks", {
      method: "POST",
      key,
      json: { url: `${receiver.url}?tenant=a`, description: "local receiver", eventTypes: ["ticket.created"], gameIds: [galaxy] },
    });
    expect(created.status, created.text).toBe(200);
    const { webhook, secret } = created.body as { webhook: WebhookDto; secret: string };
    expect(webhook).toMatchObject({ source: "api", enabled: true, gameIds: [galaxy], eventTypes: ["ticket.created"], description: "local receiver" });
    expect(secret).toMatch(/^whsec_/);
    // Shown once: never in a read.
    expect((await stack.request(`/webhooks/${webhook.id}`, { key })).text).not.toContain(secret);
    expect((await stack.request("/webhooks", { key })).text).not.toContain(secret);

    const ticket = await stack.request("/tickets", {
      method: "POST",
      key,
      json: { gameId: galaxy, message: "My ship vanished after the update", language: "en", channels: ["email"], metadata: { player: { id: "p-1", email: "pat@example.com" } } },
    });
    expect(ticket.status, ticket.text).toBe(200);
    const { ticketId } = ticket.body as { ticketId: string };

    await eventually(async () => receiver.received.some((request) => request.body.includes(ticketId)), 30_000);
    const delivery = receiver.received.find((request) => request.body.includes(ticketId))!;
    // Verified by the Standard Webhooks library with the secret POST /webhooks returned.
    const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; timestamp: string; data: { ticketId: string; gameId: string } };
    expect(payload.type).toBe("ticket.created");
    expect(payload.data).toMatchObject({ ticketId, gameId: galaxy });
    // The payload's ticket is the ticket as GET /tickets lists it: the same fields, the same values.
    const listed = (await stack.request(`/tickets?ticketId=${ticketId}`, { key })).body as { tickets: Record<string, unknown>[] };
    expect((payload.data as unknown as { ticket: Record<string, unknown> }).ticket).toEqual(listed.tickets[0]);
    // And by the typed client's verifier, the way a customer's receiver checks it.
    expect(verifyWebhook(delivery.body, delivery.headers, secret)).toEqual(payload);
    // Another secret does not verify it.
    const other = (await stack.request(`/webhooks/${webhook.id}/rotate-secret`, { method: "POST", key })).body as { secret: string };
    const wrongSecret = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    expect(() => new Webhook(wrongSecret).verify(delivery.body, delivery.headers)).toThrow();
    expect(() => verifyWebhook(delivery.body, delivery.headers, wrongSecret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(delivery.body.replace(ticketId, galaxy), delivery.headers, secret)).toThrow(WebhookVerificationError);
    expect(other.secret).not.toBe(secret);

    let logged: DeliveryDto | undefined;
    await eventually(async () => {
      const page = await stack.request(`/webhooks/${webhook.id}/deliveries?status=succeeded`, { key });
      logged = (page.body as { deliveries: DeliveryDto[] }).deliveries.find((d) => d.payload.data.ticketId === ticketId);
      return logged !== undefined;
    }, 30_000);
    expect(logged).toMatchObject({ id: delivery.headers["webhook-id"], eventType: "ticket.created", status: "succeeded", attempts: 1, lastResponseStatus: 204 });

    // Another company's key sees nothing of it.
    expect((await stack.request(`/webhooks/${webhook.id}`, { key: b.apiKeys.main! })).status).toBe(404);
    expect((await stack.request(`/webhooks/${webhook.id}/deliveries`, { key: b.apiKeys.main! })).status).toBe(404);
  });

  it("replays POST /webhooks with the same Idempotency-Key: the same subscription and secret, created once", async () => {
    const key = a.apiKeys.main!;
    const json = { url: `${receiver.url}?idempotent`, description: "idempotent", eventTypes: ["ticket.closed"] };
    const headers = { "Idempotency-Key": `create-webhook-${Date.now()}` };
    const before = ((await stack.request("/webhooks", { key })).body as { webhooks: WebhookDto[] }).webhooks.length;

    const first = await stack.request("/webhooks", { method: "POST", key, json, headers });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(first.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    const created = first.body as { webhook: WebhookDto; secret: string };
    expect(created.secret).toMatch(/^whsec_/);

    const again = await stack.request("/webhooks", { method: "POST", key, json, headers });
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    expect(again.body).toEqual(created);

    const listed = await stack.request("/webhooks", { key });
    expect(listed.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    const webhooks = (listed.body as { webhooks: WebhookDto[] }).webhooks;
    expect(webhooks).toHaveLength(before + 1);
    expect(webhooks.filter((webhook) => webhook.url === json.url).map((webhook) => webhook.id)).toEqual([created.webhook.id]);

    // The key with another request is refused; the rotation under a key of its own replays its new secret too.
    const reused = await stack.request("/webhooks", { method: "POST", key, json: { ...json, description: "other" }, headers });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ code: "idempotency_key_reused" });
    const rotateKey = { "Idempotency-Key": `rotate-webhook-${Date.now()}` };
    const rotated = await stack.request(`/webhooks/${created.webhook.id}/rotate-secret`, { method: "POST", key, headers: rotateKey });
    const rotatedAgain = await stack.request(`/webhooks/${created.webhook.id}/rotate-secret`, { method: "POST", key, headers: rotateKey });
    expect(rotatedAgain.headers.get("idempotent-replayed")).toBe("true");
    expect((rotatedAgain.body as { secret: string }).secret).toBe((rotated.body as { secret: string }).secret);
    expect((rotated.body as { secret: string }).secret).not.toBe(created.secret);
  });

  it("refuses what the service refuses with the validation error body naming the field", async () => {
    const key = a.apiKeys.main!;
    const foreignGame = b.games.galaxy!.id;
    const response = await stack.request("/webhooks", { method: "POST", key, json: { url: receiver.url, eventTypes: ["ticket.created"], gameIds: [foreignGame] } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/gameIds/0" }] } });
    const credentials = await stack.request("/webhooks", { method: "POST", key, json: { url: "https://user:pass@hooks.example.com/", eventTypes: ["ticket.created"] } });
    expect(credentials.status).toBe(400);
    expect(credentials.body).toMatchObject({ details: { issues: [{ path: "/url" }] } });
  });

  it("applies a tenant file's webhooks with the admin tool: secrets printed once, source tenant_file, gone when unlisted", async () => {
    const file = tenant("Gamma", [{ url: `${receiver.url}?tenant=gamma`, events: ["ticket.created", "ticket.resolved"], games: ["farm"], description: "from the file" }]);
    const first = (await stack.applyTenant(file)) as TenantResult & { webhooks: { url: string; id: string; action: string; secret?: string }[] };
    expect(first.webhooks).toEqual([{ url: `${receiver.url}?tenant=gamma`, id: expect.any(String), action: "created", enabled: true, secret: expect.stringMatching(/^whsec_/) }]);
    const key = first.apiKeys.main!;
    const listed = (await stack.request("/webhooks", { key })).body as { webhooks: WebhookDto[] };
    expect(listed.webhooks).toEqual([expect.objectContaining({ id: first.webhooks[0]!.id, source: "tenant_file", gameIds: [first.games.farm!.id], description: "from the file" })]);

    // The same file again: nothing new, no secret.
    const again = (await stack.applyTenant(file)) as typeof first;
    expect(again.webhooks).toEqual([{ url: `${receiver.url}?tenant=gamma`, id: first.webhooks[0]!.id, action: "unchanged", enabled: true }]);

    // Editing only the webhooks applies them to the same company (nothing new in content).
    const edited = (await stack.applyTenant({ ...file, webhooks: [{ ...file.webhooks![0], description: "edited", enabled: false }] })) as typeof first & { alreadyApplied?: true };
    expect(edited).toMatchObject({ companyId: first.companyId, alreadyApplied: true });
    expect(edited.webhooks).toEqual([{ url: `${receiver.url}?tenant=gamma`, id: first.webhooks[0]!.id, action: "updated", enabled: false }]);
    expect((await stack.request(`/webhooks/${first.webhooks[0]!.id}`, { key })).body).toMatchObject({ description: "edited", enabled: false });

    // A subscription made through the API is never touched by the file; an unlisted file one is deleted.
    const api = (await stack.request("/webhooks", { method: "POST", key, json: { url: `${receiver.url}?api`, eventTypes: ["ticket.closed"] } })).body as { webhook: WebhookDto };
    const emptied = (await stack.applyTenant({ ...file, webhooks: [] })) as typeof first;
    expect(emptied.companyId).toBe(first.companyId);
    expect(emptied.webhooks).toEqual([expect.objectContaining({ id: first.webhooks[0]!.id, action: "deleted" })]);
    const remaining = (await stack.request("/webhooks", { key })).body as { webhooks: WebhookDto[] };
    expect(remaining.webhooks.map((webhook) => webhook.id)).toEqual([api.webhook.id]);
  });

  it("names the tenant file's path of what the webhooks service refuses", async () => {
    const error = await stack.applyTenant(tenant("Delta", [{ url: "https://user:pass@hooks.example.com/", events: ["ticket.created"] }])).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toContain('"path": "webhooks/0/url"');
    expect(error?.message).toContain("pnpm admin apply -");
  });

  it("answers the webhook routes 503 with the error body while the service is down, other routes unaffected", async () => {
    const key = a.apiKeys.main!;
    await stack.stopService("webhooks");
    try {
      const response = await stack.request("/webhooks", { key });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ code: "unavailable", message: "A dependency is unavailable, try again later" });
      expect((await stack.request("/games", { key })).status).toBe(200);
      await eventually(async () => {
        const report = (await stack.request("/healthz/dependencies")).body as { services: { webhooks: { status: string } } };
        return report.services.webhooks.status === "unavailable";
      });
    } finally {
      await stack.startService("webhooks");
    }
    await eventually(async () => (await stack.request("/webhooks", { key })).status === 200, 15_000);
  });
});
