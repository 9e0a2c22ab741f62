// Deliveries of events made by the real tickets service: every subscribed event once (after
// de-duplication by webhook-id) in per-ticket order, signed the Standard Webhooks way; the
// game filter; private notes only to subscriptions that asked for them; retries after a 500;
// two replicas on one database.
import { randomUUID } from "node:crypto";
import { Webhook as Verifier } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodies, eventually, startWebhooks, type Receiver, type TenantResult, type WebhooksTestContext } from "./context.ts";

let ctx: WebhooksTestContext;

beforeAll(async () => {
  // A generous attempt deadline: with healthy receivers every delivery then arrives exactly once.
  ctx = await startWebhooks({ WEBHOOK_TIMEOUT_MS: "15000" });
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const ticketTypes = [
  "ticket.created",
  "ticket.message_added",
  "ticket.status_changed",
  "ticket.assigned",
  "ticket.tags_changed",
  "ticket.resolved",
  "ticket.closed",
];

async function newTicket(tenant: TenantResult, game = "galaxy") {
  const unique = randomUUID();
  const response = await ctx.tickets.createTicket({
    companyId: tenant.companyId,
    gameId: tenant.games[game]!.id,
    message: `Help with request ${unique}`,
    language: "en",
    channels: ["email"],
    player: { id: `player-${unique}`, name: "Pat", email: `pat-${unique}@example.com` },
  });
  return response.ticketId;
}

/** Distinct deliveries by webhook-id, in arrival order of their first copy. */
function distinct(receiver: Receiver) {
  const seen = new Set<string>();
  return receiver.requests.filter((request) => {
    const id = String(request.headers["webhook-id"]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

describe("delivery of ticket events", () => {
  it("delivers every subscribed event once, in the ticket's order, signed", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook, secret } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ticketTypes });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhook?.enabled).toBe(true);

    const tickets = [await newTicket(tenant), await newTicket(tenant)];
    const alice = tenant.users.alice!;
    for (const ticketId of tickets) {
      await ctx.tickets.performTicketActions({
        companyId: tenant.companyId,
        ticketId,
        actions: [
          { action: { case: "addTags", value: { tagNames: ["bug"] } } },
          { action: { case: "assignTicket", value: { assigneeId: alice } } },
          { action: { case: "sendMessage", value: { message: "We are on it", userId: alice } } },
          { action: { case: "addPrivateNote", value: { message: "secret internal note", userId: alice } } },
          { action: { case: "resolveTicket", value: { userId: alice } } },
        ],
      });
    }

    // Per ticket: created, message (player), tags, status new→assigned, assigned, message (agent),
    // status →closed, closed, resolved. The private note is not among them.
    await eventually(() => distinct(receiver).length >= 2 * 9);
    const delivered = distinct(receiver);
    expect(delivered).toHaveLength(18);
    const verifier = new Verifier(secret);
    for (const request of delivered) {
      expect(() => verifier.verify(request.body, request.headers as Record<string, string>)).not.toThrow();
      expect(request.headers["content-type"]).toBe("application/json");
    }
    for (const body of bodies(receiver)) expect(JSON.stringify(body)).not.toContain("secret internal note");
    for (const ticketId of tickets) {
      const ofTicket = delivered.map((request) => JSON.parse(request.body)).filter((body) => body.data.ticketId === ticketId);
      expect(ofTicket.map((body) => body.type)).toEqual([
        "ticket.created",
        "ticket.message_added",
        "ticket.tags_changed",
        "ticket.status_changed",
        "ticket.assigned",
        "ticket.message_added",
        "ticket.status_changed",
        "ticket.closed",
        "ticket.resolved",
      ]);
      expect(ofTicket[0].data.ticket.id).toBe(ticketId);
      expect(ofTicket[0].data.gameId).toBe(tenant.games.galaxy!.id);
      expect(ofTicket[5].data.message).toBe("We are on it");
    }

    // The log says the same.
    await eventually(async () => {
      const page = await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id, limit: 100 });
      return page.deliveries.length === 18 && page.deliveries.every((d) => d.status === "succeeded" && d.attempts >= 1);
    });
    const firstPage = await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id, limit: 10 });
    expect(firstPage.deliveries).toHaveLength(10);
    const secondPage = await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id, limit: 10, cursor: firstPage.nextCursor });
    expect(secondPage.deliveries).toHaveLength(8);
    expect(secondPage.nextCursor).toBeUndefined();
  });

  it("applies the game filter and sends private notes only to subscriptions that asked for them", async () => {
    const tenant = await ctx.applyTenant();
    const farmOnly = await ctx.receiver();
    const notes = await ctx.receiver();
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: farmOnly.url, eventTypes: ["ticket.created", "ticket.private_note_added"], gameIds: [tenant.games.farm!.id] });
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: notes.url, eventTypes: ["ticket.private_note_added"] });

    const galaxyTicket = await newTicket(tenant, "galaxy");
    const farmTicket = await newTicket(tenant, "farm");
    for (const ticketId of [galaxyTicket, farmTicket]) {
      await ctx.tickets.performTicketActions({
        companyId: tenant.companyId,
        ticketId,
        actions: [{ action: { case: "addPrivateNote", value: { message: `note on ${ticketId}`, userId: tenant.users.alice } } }],
      });
    }
    await eventually(() => distinct(notes).length >= 2 && distinct(farmOnly).length >= 2);
    // A marker event after the others: once it arrived, nothing else is on its way.
    const marker = await newTicket(tenant, "farm");
    await eventually(() => bodies(farmOnly).some((body) => body.data.ticketId === marker));

    expect(new Set(bodies(notes).map((body) => `${body.type} ${String(body.data.ticketId)}`))).toEqual(
      new Set([`ticket.private_note_added ${galaxyTicket}`, `ticket.private_note_added ${farmTicket}`]),
    );
    expect(bodies(notes).find((body) => body.data.ticketId === farmTicket)?.data.message).toBe(`note on ${farmTicket}`);
    expect(new Set(bodies(farmOnly).map((body) => `${body.type} ${String(body.data.ticketId)}`))).toEqual(
      new Set([`ticket.created ${farmTicket}`, `ticket.private_note_added ${farmTicket}`, `ticket.created ${marker}`]),
    );
  });

  it("retries a delivery the receiver failed and records both attempts", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver((_request, index) => (index === 0 ? { status: 500, body: "busy" } : { status: 204 }));
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["webhook.test"] });
    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    expect(delivery?.status).toBe("pending");
    await eventually(async () => {
      const page = await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id });
      return page.deliveries[0]?.status === "succeeded";
    });
    const [logged] = (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries;
    expect(logged).toMatchObject({ id: delivery!.id, status: "succeeded", attempts: 2, lastResponseStatus: 204, eventType: "webhook.test" });
    expect(receiver.requests.map((request) => request.headers["webhook-id"])).toEqual([delivery!.id, delivery!.id]);
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ type: "webhook.test", data: { webhookId: webhook!.id } });

    const metrics = await ctx.server.registry.metrics();
    expect(metrics).toMatch(/support_webhook_deliveries_total\{event_type="webhook.test",outcome="retry"\} [1-9]/);
    expect(metrics).toMatch(/support_webhook_deliveries_total\{event_type="webhook.test",outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/support_webhook_delivery_duration_seconds_count\{outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/support_webhook_deliveries_pending \d+/);
    expect(metrics).toMatch(/support_webhook_oldest_pending_age_seconds \d/);
  });

  it("runs two replicas without sending a delivery twice or out of order", async () => {
    await ctx.startReplica();
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 20)));
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created", "ticket.message_added", "ticket.tags_changed", "webhook.test"] });
    const tickets: string[] = [];
    for (let i = 0; i < 6; i++) {
      const ticketId = await newTicket(tenant);
      tickets.push(ticketId);
      await ctx.tickets.performTicketActions({ companyId: tenant.companyId, ticketId, actions: [{ action: { case: "addTags", value: { tagNames: ["bug"] } } }] });
      await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    }
    const expected = tickets.length * 4;
    await eventually(async () => {
      const page = await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id, limit: 100 });
      return page.deliveries.length === expected && page.deliveries.every((d) => d.status === "succeeded");
    });
    // Nothing failed or restarted: every delivery arrived exactly once.
    const ids = receiver.requests.map((r) => String(r.headers["webhook-id"]));
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(expected);
    for (const ticketId of tickets) {
      expect(bodies(receiver).filter((body) => body.data.ticketId === ticketId).map((body) => body.type)).toEqual(["ticket.created", "ticket.message_added", "ticket.tags_changed"]);
    }
  });
});

describe("delivery of SLA events", () => {
  it("delivers ticket.sla_breached from the tickets service's sweep to a subscription that asked for it", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.sla_warning", "ticket.sla_breached"] });
    await ctx.tickets.setSlaSettings({
      companyId: tenant.companyId,
      settings: { calendar: null, policies: [{ id: "fast", name: "Fast", targets: { firstResponseMinutes: 1 }, warnBeforeMinutes: 0 }] },
    });
    const ticketId = await newTicket(tenant);
    // Two minutes later by the sweep's clock, nobody has answered.
    await ctx.ticketsServer.sla.runOnce(new Date(Date.now() + 2 * 60_000));
    await eventually(() => distinct(receiver).length >= 1);
    const [body] = distinct(receiver).map((request) => JSON.parse(request.body));
    expect(body.type).toBe("ticket.sla_breached");
    expect(body.data).toMatchObject({
      ticketId, gameId: tenant.games.galaxy!.id, policyId: "fast", policyName: "Fast", metric: "first_response", cycle: "ticket", targetMinutes: 1, assigneeId: null,
      actor: { type: "system", id: "sla" },
    });
    expect(Date.parse(body.data.dueAt)).toBeGreaterThan(Date.now() - 120_000);
  });
});
