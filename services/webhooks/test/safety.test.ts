// Outbound safety with the production settings (private targets refused): a private address
// is refused when a subscription is saved and again at every attempt (a target that was
// allowed once, or whose name now resolves inside, gets nothing), and a subscription whose
// deliveries keep failing is disabled, with webhook.disabled in its log and
// webhooks.webhook.disabled on NATS.
import { jetstreamManager } from "@nats-io/jetstream";
import { connectBus, streamNameFor, type EventEnvelope } from "@support/bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, failureOf, startWebhooks, type WebhooksTestContext } from "./context.ts";

let ctx: WebhooksTestContext;

beforeAll(async () => {
  // 1.8 seconds of failures disable a subscription here (120 hours by default).
  ctx = await startWebhooks({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_DISABLE_AFTER_HOURS: "0.0005", WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1,1,1,1" });
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

describe("target safety", () => {
  it("refuses private, loopback, metadata and credentialed URLs when a subscription is saved", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    const refused = async (url: string) => (await failureOf(ctx.webhooks.createWebhook({ companyId: tenant.companyId, url, eventTypes: ["ticket.created"] }))).issues;
    expect(await refused(receiver.url)).toEqual([{ path: "/url", message: "target resolves to a private address" }]);
    expect(await refused(receiver.url.replace("127.0.0.1", "localhost"))).toEqual([{ path: "/url", message: "target resolves to a private address" }]);
    // IPv6 forms that carry an inside IPv4 address too: IPv4-compatible, IPv4-mapped, NAT64, 6to4.
    for (const url of [
      "http://169.254.169.254/latest/meta-data", "http://10.1.2.3/", "http://[::1]/", "http://[fd00:ec2::254]/", "http://100.64.0.1/", "http://0.0.0.0/",
      "https://[::7f00:1]/", "https://[::ffff:127.0.0.1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:a00:1::1]/",
    ]) {
      expect(await refused(url)).toEqual([{ path: "/url", message: "target resolves to a private address" }]);
    }
    expect(await refused("http://user:pw@example.com/")).toEqual([{ path: "/url", message: "must not carry credentials" }]);
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: "https://93.184.215.14/hook", eventTypes: ["ticket.created"] });
    expect(await failureOf(ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: webhook!.id, url: receiver.url }))).toMatchObject({
      code: "invalid_argument",
      issues: [{ path: "/url", message: "target resolves to a private address" }],
    });
  });

  it("refuses a private target at delivery, then disables the failing subscription", async () => {
    const tenant = await ctx.applyTenant();
    const receiver = await ctx.receiver();
    // Saved while private targets were allowed; the service now runs with them refused.
    await ctx.restart({ WEBHOOK_ALLOW_PRIVATE_TARGETS: true });
    const { webhook } = await ctx.webhooks.createWebhook({ companyId: tenant.companyId, url: receiver.url, eventTypes: ["ticket.created"] });
    await ctx.restart({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false });

    const { delivery } = await ctx.webhooks.sendTestEvent({ companyId: tenant.companyId, webhookId: webhook!.id });
    await eventually(async () => (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries.some((d) => d.attempts > 0));
    const attempted = (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries.find((d) => d.id === delivery!.id);
    expect(attempted).toMatchObject({ lastError: "target resolves to a private address" });
    expect(attempted!.lastResponseStatus).toBeUndefined();

    await eventually(async () => !(await ctx.webhooks.getWebhook({ companyId: tenant.companyId, webhookId: webhook!.id })).webhook!.enabled);
    const disabled = (await ctx.webhooks.getWebhook({ companyId: tenant.companyId, webhookId: webhook!.id })).webhook!;
    expect(disabled.disabledReason).toMatch(/failed/);
    const log = (await ctx.webhooks.listDeliveries({ companyId: tenant.companyId, webhookId: webhook!.id })).deliveries;
    expect(log.find((d) => d.id === delivery!.id)?.status).toBe("failed");
    const notice = log.find((d) => d.eventType === "webhook.disabled");
    expect(JSON.parse(notice!.payload)).toMatchObject({ type: "webhook.disabled", data: { webhookId: webhook!.id } });
    expect(receiver.requests).toEqual([]);

    await ctx.server.relay.flush();
    const nc = await connectBus(ctx.infra.natsUrl, "webhooks-test-reader");
    try {
      const jsm = await jetstreamManager(nc);
      const message = await jsm.streams.getMessage(streamNameFor(ctx.infra.natsPrefix, "webhooks"), { last_by_subj: `${ctx.infra.natsPrefix}webhooks.webhook.disabled` });
      const event = message!.json<EventEnvelope>();
      expect(event).toMatchObject({ type: "webhooks.webhook.disabled", companyId: tenant.companyId, data: { webhookId: webhook!.id } });
    } finally {
      await nc.drain();
    }

    // Enabling it again clears the reason and the failure streak.
    const enabled = await ctx.webhooks.updateWebhook({ companyId: tenant.companyId, webhookId: webhook!.id, enabled: true });
    expect(enabled.webhook).toMatchObject({ enabled: true });
    expect(enabled.webhook!.disabledReason).toBeUndefined();
  });
});
