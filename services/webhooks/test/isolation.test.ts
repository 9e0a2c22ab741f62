// One company's endpoint that never answers holds only its own few delivery slots: another
// company's deliveries go out meanwhile. The replica has 6 slots, 2 per webhook; the silent
// endpoint gets ten independent deliveries and a minute-long timeout, so without the
// per-webhook bound it would hold every slot for that minute.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startWebhooks, type WebhooksTestContext } from "./context.ts";

let ctx: WebhooksTestContext;

beforeAll(async () => {
  ctx = await startWebhooks({ WEBHOOK_TIMEOUT_MS: "60000", WEBHOOK_CONCURRENCY: "6", WEBHOOK_PER_WEBHOOK_CONCURRENCY: "2" });
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

describe("per-webhook concurrency", () => {
  it("does not let a never-answering endpoint delay another company's deliveries", async () => {
    const silentTenant = await ctx.applyTenant();
    const busyTenant = await ctx.applyTenant();
    const silent = await ctx.receiver(() => undefined);
    const healthy = await ctx.receiver();
    const { webhook: silentHook } = await ctx.webhooks.createWebhook({ companyId: silentTenant.companyId, url: silent.url, eventTypes: ["ticket.created"] });
    const { webhook: healthyHook } = await ctx.webhooks.createWebhook({ companyId: busyTenant.companyId, url: healthy.url, eventTypes: ["ticket.created"] });
    for (let i = 0; i < 10; i++) await ctx.webhooks.sendTestEvent({ companyId: silentTenant.companyId, webhookId: silentHook!.id });
    await eventually(() => silent.requests.length === 2);

    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: busyTenant.companyId, webhookId: healthyHook!.id });
    // Well within the silent endpoint's one-minute timeout.
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: busyTenant.companyId, webhookId: healthyHook!.id })).deliveries[0]?.status === "succeeded", 30_000);
    expect(healthy.requests.map((r) => r.headers["webhook-id"])).toEqual([delivery!.id]);
    // Still only its two slots, all unanswered.
    expect(silent.requests).toHaveLength(2);
    const pending = (await ctx.webhooks.listDeliveries({ companyId: silentTenant.companyId, webhookId: silentHook!.id, limit: 100 })).deliveries;
    expect(pending.every((d) => d.status === "pending" && d.attempts === 0)).toBe(true);
    // Cut the hanging exchanges so that the service stops at once.
    await silent.close();
  });
});
