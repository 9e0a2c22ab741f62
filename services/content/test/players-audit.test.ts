// Audit entries the players service hands over: players.audit.recorded events on the players
// stream are recorded in the company's audit log by content's durable consumer of that stream,
// once per event id (a redelivered or replayed event records nothing more), beside the webhooks
// service's entries.
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
  nc = await connectBus(ctx.infra.natsUrl, "content-players-audit-test");
  await ensureStream(nc, { name: streamNameFor(ctx.infra.natsPrefix, "players"), subjects: [`${ctx.infra.natsPrefix}players.>`], replicas: 1 });
});

afterAll(async () => {
  await nc?.drain();
  await ctx?.stop();
});

function auditEvent(companyId: string, actorId: string, action = "player.blocked") {
  return {
    id: randomUUID(),
    version: 1,
    type: "players.audit.recorded" as const,
    occurredAt: new Date().toISOString(),
    companyId,
    data: {
      action,
      actor: { type: "user" as const, id: actorId },
      target: { type: "player" as const, id: randomUUID() },
      before: null,
      after: { blocked: true },
      detail: { gameId: randomUUID(), playerId: "pat-1", newPlayer: true },
      clientAddress: "203.0.113.9",
      createdAt: new Date().toISOString(),
    },
  };
}

const entriesOf = (eventId: string) => ctx.db.selectFrom("audit_log").selectAll().where("source_event_id", "=", eventId).execute();
const subject = () => `${ctx.infra.natsPrefix}players.audit.recorded`;

describe("players.audit.recorded", () => {
  it("is recorded once in the company's audit log, however often it is delivered", async () => {
    const company = await seedCompany(ctx.db);
    const event = auditEvent(company.id, randomUUID());
    // Core publishes, captured by the stream (no message id: the stream's duplicate window does not apply).
    const publish = async (data: unknown) => {
      nc.publish(subject(), JSON.stringify(data));
      await nc.flush();
    };
    await publish(event);
    await expect.poll(async () => (await entriesOf(event.id)).length, { timeout: 10_000 }).toBe(1);
    await publish(event);
    const marker = auditEvent(company.id, randomUUID(), "player.unblocked");
    await publish(marker);
    // The consumer handles one message at a time: once the later one is in, the redelivery was handled.
    await expect.poll(async () => (await entriesOf(marker.id)).length, { timeout: 10_000 }).toBe(1);
    expect(await entriesOf(event.id)).toHaveLength(1);
    const [entry] = await entriesOf(event.id);
    expect(entry).toMatchObject({
      company_id: company.id,
      action: "player.blocked",
      actor: event.data.actor,
      target_type: "player",
      target_id: event.data.target.id,
      before: null,
      after: { blocked: true },
      detail: event.data.detail,
      client_address: "203.0.113.9",
    });
    expect(entry!.created_at.toISOString()).toBe(event.data.createdAt);
  });

  it("records nothing for an event recorded before", async () => {
    const company = await seedCompany(ctx.db);
    const event = auditEvent(company.id, randomUUID(), "player.deletion_cancelled");
    expect(await recordServiceAudit(ctx.db, event)).toBe(true);
    expect(await recordServiceAudit(ctx.db, event)).toBe(false);
    expect(await entriesOf(event.id)).toHaveLength(1);
  });
});
