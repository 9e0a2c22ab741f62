// Audit entries of changes made by an admin in the settings: with an acting user, each write RPC
// hands an entry to content (webhooks.audit.recorded, through the outbox in the change's
// transaction) and content records it in the company's audit log, without any secret; without
// one (the REST API, an API key) and for an update that changes nothing, nothing is recorded.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, sql, type Kysely } from "@support/db";
import { startWebhooks, type WebhooksTestContext } from "./context.ts";

let ctx: WebhooksTestContext;
let content: Kysely<unknown>;

beforeAll(async () => {
  ctx = await startWebhooks();
  content = createDb({ url: ctx.infra.databaseUrl, schema: "content", maxConnections: 1 });
}, 180_000);

afterAll(async () => {
  await content?.destroy();
  await ctx?.stop();
});

interface Entry {
  action: string;
  actor: { type: string; id: string | null };
  target_type: string;
  target_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  detail: Record<string, unknown>;
  client_address: string | null;
  source_event_id: string | null;
}

const entriesOf = async (webhookId: string) =>
  (await sql<Entry>`select action, actor, target_type, target_id, before, after, detail, client_address, source_event_id from audit_log where target_id = ${webhookId} order by id`.execute(content)).rows;

describe("audit entries of webhook changes", () => {
  it("records each change made by an admin, once, with the actor and without a secret", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const admin = randomUUID();
    const origin = { actorUserId: admin, clientAddress: "198.51.100.7" };
    const { webhook, secret } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"], ...origin });
    const id = webhook!.id;
    await ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: id, description: "CRM", ...origin });
    // The same again: nothing changes, nothing is recorded.
    await ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: id, description: "CRM", ...origin });
    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: id, ...origin });
    await ctx.webhooks.retryDelivery({ companyId: tenant.companyId, webhookId: id, deliveryId: delivery!.id, ...origin });
    const rotated = await ctx.webhooks.rotateWebhookSecret({ companyId: tenant.companyId, webhookId: id, ...origin });
    await ctx.webhooks.deleteWebhook({ companyId: tenant.companyId, webhookId: id, ...origin });

    const expected = ["webhook.created", "webhook.updated", "webhook.test_sent", "webhook.delivery_retried", "webhook.secret_rotated", "webhook.deleted"];
    await expect.poll(async () => (await entriesOf(id)).map((entry) => entry.action), { timeout: 30_000 }).toEqual(expected);
    const entries = await entriesOf(id);
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: { type: "user", id: admin }, target_type: "webhook", target_id: id, client_address: "198.51.100.7", source_event_id: expect.any(String) });
      expect(JSON.stringify(entry)).not.toContain(secret);
      expect(JSON.stringify(entry)).not.toContain(rotated.secret);
    }
    expect(entries[0]).toMatchObject({ before: null, after: { url: receiver.url, description: null, eventTypes: ["ticket.created"], gameIds: [], enabled: true } });
    expect(entries[1]).toMatchObject({ before: { description: null }, after: { description: "CRM" } });
    expect(entries[2]!.detail).toMatchObject({ url: receiver.url, deliveryId: delivery!.id });
    expect(entries[5]).toMatchObject({ before: { url: receiver.url, description: "CRM" }, after: null });
  });

  it("records nothing for changes without an acting user (the REST API)", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] });
    await ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: webhook!.id, description: "API" });
    await ctx.webhooks.rotateWebhookSecret({ companyId: tenant.companyId, webhookId: webhook!.id });
    // An admin's change after them is recorded: once it is in, the ones before would have been too.
    await ctx.webhooks.deleteWebhook({ companyId: tenant.companyId, webhookId: webhook!.id, actorUserId: randomUUID() });
    await expect.poll(async () => (await entriesOf(webhook!.id)).map((entry) => entry.action), { timeout: 30_000 }).toEqual(["webhook.deleted"]);
  });
});
