// Subscriptions through the RPCs: validation, tenant isolation, secret rotation (both
// signatures during the overlap), secrets encrypted at rest, retries of the log, the admin
// apply, the erasure of a player's data, and a restart in the middle of a stream of events.
import { randomUUID } from "node:crypto";
import { Webhook as Verifier } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodies, eventually, failureOf, startWebhooks, type TenantResult, type WebhooksTestContext } from "./context.ts";

let ctx: WebhooksTestContext;

beforeAll(async () => {
  ctx = await startWebhooks();
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

async function newTicket(tenant: TenantResult, playerId = `player-${randomUUID()}`) {
  const response = await ctx.tickets.createTicket({
    companyId: tenant.companyId,
    gameId: tenant.games.galaxy!.id,
    message: `My ship is gone ${randomUUID()}`,
    language: "en",
    channels: ["email"],
    player: { id: playerId, name: "Erin Erasable", email: `erin-${randomUUID()}@example.com` },
  });
  return response.ticketId;
}

describe("subscriptions", () => {
  it("creates, lists, updates and deletes, and hides other companies' subscriptions", async () => {
    const tenant = await ctx.applyTenant();
    const other = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook } = await ctx.webhooks.createWebhook({
      companyId: tenant.companyId,
      url: receiver.url,
      description: "CRM sync",
      eventTypes: ["ticket.created", "ticket.created"],
      gameIds: [tenant.games.galaxy!.id],
    });
    expect(webhook).toMatchObject({ url: receiver.url, description: "CRM sync", eventTypes: ["ticket.created"], gameIds: [tenant.games.galaxy!.id], enabled: true, source: "api" });
    expect((await ctx.webhooks.listWebhooks({ companyId: tenant.companyId })).webhooks.map((w) => w.id)).toEqual([webhook!.id]);
    expect((await ctx.webhooks.listWebhooks({ companyId: other.companyId })).webhooks).toEqual([]);
    expect(await failureOf(ctx.webhooks.getWebhook({ companyId: other.companyId, webhookId: webhook!.id }))).toMatchObject({ code: "not_found", message: "webhook not found" });

    const updated = await ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: webhook!.id, description: "CRM", setGameIds: true, gameIds: [], enabled: false });
    expect(updated.webhook).toMatchObject({ description: "CRM", gameIds: [], enabled: false, eventTypes: ["ticket.created"], url: receiver.url });
    expect(updated.webhook?.disabledReason).toBeUndefined();

    expect(await failureOf(ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: "ftp://example.com/x", eventTypes: ["ticket.nope"], gameIds: [other.games.galaxy!.id] }))).toMatchObject({
      code: "invalid_argument",
      issues: [
        { path: "/url", message: "must be an http or https URL" },
        { path: "/eventTypes/0", message: 'unknown event type "ticket.nope"' },
      ],
    });
    expect(await failureOf(ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"], gameIds: [other.games.galaxy!.id] }))).toMatchObject({
      code: "invalid_argument",
      issues: [{ path: "/gameIds/0", message: "game not found" }],
    });

    await ctx.webhooks.deleteWebhook({ companyId: tenant.companyId, webhookId: webhook!.id });
    expect(await failureOf(ctx.webhooks.deleteWebhook({ companyId: tenant.companyId, webhookId: webhook!.id }))).toMatchObject({ code: "not_found" });
  });

  it("signs with both secrets during a rotation's overlap and keeps secrets encrypted at rest", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const created = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] });
    const rotated = await ctx.webhooks.rotateWebhookSecret({ companyId: tenant.companyId, webhookId: created.webhook!.id });
    expect(rotated.secret).not.toBe(created.secret);
    const expires = Number(rotated.webhook!.previousSecretExpiresAt!.seconds) * 1000;
    expect(expires).toBeGreaterThan(Date.now() + 23 * 3_600_000);

    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: created.webhook!.id });
    await eventually(() => receiver.requests.length > 0);
    const [request] = receiver.requests;
    expect(request!.headers["webhook-id"]).toBe(delivery!.id);
    const signatures = String(request!.headers["webhook-signature"]).split(" ");
    expect(signatures).toHaveLength(2);
    for (const secret of [rotated.secret, created.secret]) {
      expect(() => new Verifier(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow();
    }
    expect(() => new Verifier(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(request!.body, request!.headers as Record<string, string>)).toThrow();

    const row = await ctx.db.selectFrom("webhooks").selectAll().where("id", "=", created.webhook!.id).executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    for (const secret of [created.secret, rotated.secret]) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice("whsec_".length, -1));
      expect(stored).not.toContain(Buffer.from(secret.slice("whsec_".length), "base64").toString("hex"));
    }
    expect(row.secret_sealed).toMatch(/^v1\./);
  });

  it("replays creations and rotations by Idempotency-Key, their recorded answers encrypted at rest", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const request = { companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] };
    const replayed: string[] = [];
    const withKey = (key: string) => ({ headers: { "idempotency-key": key }, onHeader: (headers: Headers) => void replayed.push(headers.get("idempotent-replayed") ?? "no") });
    const created = await ctx.webhooks.createWebhook(request, withKey("create-1"));
    const again = await ctx.webhooks.createWebhook(request, withKey("create-1"));
    expect(again).toEqual(created);
    expect((await ctx.webhooks.listWebhooks({ companyId: tenant.companyId })).webhooks.map((w) => w.id)).toEqual([created.webhook!.id]);
    const rotated = await ctx.webhooks.rotateWebhookSecret({ companyId: tenant.companyId, webhookId: created.webhook!.id }, withKey("rotate-1"));
    const rotatedAgain = await ctx.webhooks.rotateWebhookSecret({ companyId: tenant.companyId, webhookId: created.webhook!.id }, withKey("rotate-1"));
    expect(rotatedAgain.secret).toBe(rotated.secret);
    expect(replayed).toEqual(["no", "true", "no", "true"]);

    const records = await ctx.db.selectFrom("idempotency_keys").select(["key", "response"]).where("company_id", "=", tenant.companyId.toLowerCase()).execute();
    expect(records.map((r) => r.key).sort()).toEqual(["create-1", "rotate-1"]);
    for (const record of records) {
      const text = Buffer.from(record.response).toString("latin1");
      for (const secret of [created.secret, rotated.secret]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice("whsec_".length, -1));
      }
      expect(text).not.toContain(receiver.url);
    }
  });

  it("retries a delivery of the log on demand with the same webhook-id", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] });
    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    await eventually(() => receiver.requests.length === 1);
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries[0]?.status === "succeeded");
    const retried = await ctx.webhooks.retryDelivery({ companyId: tenant.companyId, webhookId: webhook!.id, deliveryId: delivery!.id });
    expect(retried.delivery?.status).toBe("pending");
    await eventually(() => receiver.requests.length === 2);
    expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual([delivery!.id, delivery!.id]);
    expect(await failureOf(ctx.webhooks.retryDelivery({ companyId: tenant.companyId, webhookId: webhook!.id, deliveryId: randomUUID() }))).toMatchObject({ code: "not_found" });
  });
});

describe("log retention", () => {
  it("deletes finished deliveries older than the retention, never pending ones", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] });
    const { delivery: done } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries[0]?.status === "succeeded");
    const { delivery: waiting } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries.every((d) => d.status === "succeeded"));
    // As if its last attempt had failed: pending, the next attempt an hour away.
    await ctx.db.updateTable("deliveries").set({ status: "pending", next_attempt_at: new Date(Date.now() + 3_600_000) }).where("id", "=", waiting!.id).execute();
    const old = new Date(Date.now() - 31 * 86_400_000);
    await ctx.db.updateTable("deliveries").set({ created_at: old }).where("webhook_id", "=", webhook!.id).execute();

    expect(await ctx.server.logRetention.runOnce()).toBeGreaterThanOrEqual(1);
    const left = (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries.map((d) => d.id);
    expect(left).toContain(waiting!.id);
    expect(left).not.toContain(done!.id);
  });
});

describe("admin apply", () => {
  it("needs the admin token, and matches tenant-file subscriptions by URL without touching API ones", async () => {
    const tenant = await ctx.applyTenant();
    const [a, b, api] = [await ctx.receiver(), await ctx.receiver(), await ctx.receiver()];
    const auth = { headers: { authorization: `Bearer ${ctx.adminToken}` } };
    expect(await failureOf(ctx.admin.applyWebhooks({ companyId: tenant.companyId, webhooks: [] }))).toMatchObject({ code: "unauthenticated" });
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: api.url, eventTypes: ["ticket.created"] });

    const spec = (url: string, description = "") => ({ url, description, eventTypes: ["ticket.created"], gameIds: [], enabled: true });
    const first = await ctx.admin.applyWebhooks({ companyId: tenant.companyId, webhooks: [spec(a.url), spec(b.url)] }, auth);
    expect(first.webhooks.map((w) => [w.action, w.webhook?.source, w.secret?.startsWith("whsec_")])).toEqual([
      ["created", "tenant_file", true],
      ["created", "tenant_file", true],
    ]);
    const second = await ctx.admin.applyWebhooks({ companyId: tenant.companyId, webhooks: [spec(a.url, "changed")] }, auth);
    expect(second.webhooks.map((w) => [w.action, w.webhook?.url, w.secret])).toEqual([
      ["updated", a.url, undefined],
      ["deleted", b.url, undefined],
    ]);
    const third = await ctx.admin.applyWebhooks({ companyId: tenant.companyId, webhooks: [spec(a.url, "changed")] }, auth);
    expect(third.webhooks.map((w) => w.action)).toEqual(["unchanged"]);
    // All or nothing: one bad entry changes nothing.
    expect(await failureOf(ctx.admin.applyWebhooks({ companyId: tenant.companyId, webhooks: [spec(b.url), { ...spec(a.url), eventTypes: ["nope"] }] }, auth))).toMatchObject({
      code: "invalid_argument",
      issues: [{ path: "/webhooks/1/eventTypes/0" }],
    });
    const urls = (await ctx.webhooks.listWebhooks({ companyId: tenant.companyId })).webhooks.map((w) => [w.url, w.source]);
    expect(urls).toEqual([
      [api.url, "api"],
      [a.url, "tenant_file"],
    ]);
  });
});

describe("erasure", () => {
  it("redacts what the log holds about an erased player and delivers player.deleted", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook } = await ctx.webhooks.createWebhook({
      companyId: tenant.companyId,
      url: receiver.url,
      eventTypes: ["ticket.created", "ticket.message_added", "ticket.deleted", "player.deleted"],
    });
    const externalId = `player-${randomUUID()}`;
    const ticketId = await newTicket(tenant, externalId);
    const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId });
    const playerId = ticket!.servicePlayerId!;
    await eventually(() => receiver.requests.length >= 2);
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries.every((d) => d.status === "succeeded"));

    await ctx.players.deletePlayer({ companyId: tenant.companyId, playerId });
    await eventually(() => bodies(receiver).some((body) => body.type === "player.deleted"));
    const deleted = bodies(receiver).find((body) => body.type === "player.deleted")!;
    expect(deleted.data).toMatchObject({ servicePlayerId: playerId, gameId: tenant.games.galaxy!.id });
    expect(bodies(receiver).some((body) => body.type === "ticket.deleted" && body.data.ticketId === ticketId)).toBe(true);

    const log = (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id, limit: 100 })).deliveries;
    expect(log.map((d) => d.eventType).sort()).toEqual(["player.deleted", "ticket.created", "ticket.deleted", "ticket.message_added"]);
    const everything = JSON.stringify(log.map((d) => [d.payload, d.lastResponseBody])) + JSON.stringify(await ctx.db.selectFrom("deliveries").selectAll().where("webhook_id", "=", webhook!.id).execute());
    expect(everything).not.toContain("Erin Erasable");
    expect(everything).not.toContain("My ship is gone");
    expect(everything).not.toContain(externalId);
    for (const delivery of log.filter((d) => d.eventType.startsWith("ticket.created") || d.eventType === "ticket.message_added")) {
      expect(delivery.status).toBe("succeeded");
      expect(JSON.parse(delivery.payload)).toEqual({ type: delivery.eventType, timestamp: expect.any(String), data: { redacted: true } });
    }
  });
});

describe("restart", () => {
  it("loses nothing and sends nothing twice under another id when the service stops mid-stream", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created", "ticket.message_added"] });
    const tickets: string[] = [];
    for (let i = 0; i < 6; i++) tickets.push(await newTicket(tenant));
    // Stopped while events are still arriving and being sent.
    const creating = (async () => {
      for (let i = 0; i < 6; i++) tickets.push(await newTicket(tenant));
    })();
    await ctx.restart();
    await creating;
    for (let i = 0; i < 3; i++) tickets.push(await newTicket(tenant));

    const expected = tickets.length * 2;
    const distinctIds = () => new Set(receiver.requests.map((r) => String(r.headers["webhook-id"])));
    await eventually(() => distinctIds().size >= expected, 60_000);
    // One delivery per event and type: a copy is always under the same webhook-id.
    const byEvent = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const body = JSON.parse(request.body) as { type: string; data: { ticketId: string } };
      const key = `${body.type} ${body.data.ticketId}`;
      byEvent.set(key, (byEvent.get(key) ?? new Set()).add(String(request.headers["webhook-id"])));
    }
    expect(byEvent.size).toBe(expected);
    for (const ids of byEvent.values()) expect(ids.size).toBe(1);
    for (const ticketId of tickets) {
      const types = bodies(receiver).filter((body) => body.data.ticketId === ticketId).map((body) => body.type);
      expect(types[0]).toBe("ticket.created");
    }
  });

  it("loses nothing when the process is killed with deliveries in flight", async () => {
    const tenant = await ctx.applyTenant();
    // Slow answers: some attempts are always under way.
    const receiver = await ctx.receiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 200)));
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created", "ticket.message_added"] });
    const child = await ctx.startChild();
    const tickets: string[] = [];
    for (let i = 0; i < 8; i++) tickets.push(await newTicket(tenant));
    await eventually(() => receiver.requests.length >= 3);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    for (let i = 0; i < 2; i++) tickets.push(await newTicket(tenant));
    await ctx.startInProcess();

    const expected = tickets.length * 2;
    await eventually(() => new Set(receiver.requests.map((r) => String(r.headers["webhook-id"]))).size >= expected, 90_000);
    const byEvent = new Map<string, Set<string>>();
    const firstTypes = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const request of receiver.requests) {
      const id = String(request.headers["webhook-id"]);
      const body = JSON.parse(request.body) as { type: string; data: { ticketId: string } };
      const key = `${body.type} ${body.data.ticketId}`;
      byEvent.set(key, (byEvent.get(key) ?? new Set()).add(id));
      if (seen.has(id)) continue;
      seen.add(id);
      firstTypes.set(body.data.ticketId, [...(firstTypes.get(body.data.ticketId) ?? []), body.type]);
    }
    expect(byEvent.size).toBe(expected);
    for (const ids of byEvent.values()) expect(ids.size).toBe(1);
    for (const ticketId of tickets) expect(firstTypes.get(ticketId)).toEqual(["ticket.created", "ticket.message_added"]);
  });
});
