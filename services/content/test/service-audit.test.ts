// Audit entries handed over by other services: webhooks.audit.recorded events on the webhooks
// stream are recorded in the company's audit log by content's durable consumer, once per event
// id (a redelivered or replayed event records nothing more), and published as
// content.audit.recorded like content's own entries.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, ensureStream, streamNameFor, type NatsConnection } from "@support/bus";
import { recordServiceAudit } from "../src/audit/service-audit.consumer.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany } from "./fixtures.ts";

let ctx: ContentTestContext;
let nc: NatsConnection;

beforeAll(async () => {
  ctx = await startContent();
  nc = await connectBus(ctx.infra.natsUrl, "content-service-audit-test");
  await ensureStream(nc, { name: streamNameFor(ctx.infra.natsPrefix, "webhooks"), subjects: [`${ctx.infra.natsPrefix}webhooks.>`], replicas: 1 });
});

afterAll(async () => {
  await nc?.drain();
  await ctx?.stop();
});

function auditEvent(companyId: string, actorId: string) {
  return {
    id: randomUUID(),
    version: 1,
    type: "webhooks.audit.recorded" as const,
    occurredAt: new Date().toISOString(),
    companyId,
    data: {
      action: "webhook.updated",
      actor: { type: "user" as const, id: actorId },
      target: { type: "webhook" as const, id: randomUUID() },
      before: { url: "https://a.example.com/hook", enabled: true },
      after: { url: "https://b.example.com/hook", enabled: true },
      detail: {},
      clientAddress: "203.0.113.9",
      createdAt: new Date().toISOString(),
    },
  };
}

const entriesOf = (eventId: string) => ctx.db.selectFrom("audit_log").selectAll().where("source_event_id", "=", eventId).execute();

describe("webhooks.audit.recorded", () => {
  it("is recorded once, however often it is delivered", async () => {
    const company = await seedCompany(ctx.db);
    const event = auditEvent(company.id, randomUUID());
    // Core publishes, captured by the stream (no message id: the stream's duplicate window does not apply).
    const publish = async (data: unknown) => {
      nc.publish(subject, JSON.stringify(data));
      await nc.flush();
    };
    const subject = `${ctx.infra.natsPrefix}webhooks.audit.recorded`;
    await publish(event);
    await expect.poll(async () => (await entriesOf(event.id)).length, { timeout: 10_000 }).toBe(1);
    // The same event again (as after a replay from the dead letters).
    await publish(event);
    const marker = auditEvent(company.id, randomUUID());
    await publish(marker);
    // The consumer handles one message at a time: once the later one is in, the redelivery was handled.
    await expect.poll(async () => (await entriesOf(marker.id)).length, { timeout: 10_000 }).toBe(1);
    const [entry] = await entriesOf(event.id);
    expect((await entriesOf(event.id)).length).toBe(1);
    expect(entry).toMatchObject({
      company_id: company.id,
      action: "webhook.updated",
      actor: event.data.actor,
      target_type: "webhook",
      target_id: event.data.target.id,
      before: event.data.before,
      after: event.data.after,
      client_address: "203.0.113.9",
    });
    expect(entry!.created_at.toISOString()).toBe(event.data.createdAt);
  });

  it("records nothing for an event recorded before", async () => {
    const company = await seedCompany(ctx.db);
    const event = auditEvent(company.id, randomUUID());
    expect(await recordServiceAudit(ctx.db, event)).toBe(true);
    expect(await recordServiceAudit(ctx.db, event)).toBe(false);
    expect(await entriesOf(event.id)).toHaveLength(1);
  });
});
