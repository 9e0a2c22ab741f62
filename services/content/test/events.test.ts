// Every change publishes its outbox event on NATS exactly once, as the event contract
// (libs/events) defines it.
import { OPERATOR } from "../src/audit/audit-log.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ack, connectBus, createConsumer, streamNameFor, type Consumer, type EventEnvelope, type NatsConnection } from "@support/bus";
import { EVENT_DEFINITIONS, publishedEventProblems } from "@support/events";
import { createLogger } from "@support/logging";
import { revokeApiKey } from "../src/api-keys/api-key.service.ts";
import { createCollector } from "../src/collectors/collector.service.ts";
import { createField } from "../src/fields/field.service.ts";
import { createResource, deleteGame, rotateEnvironmentToken, updateGame } from "../src/games/game.service.ts";
import { setGameBranding } from "../src/games/branding.service.ts";
import { createTag } from "../src/tags/tag.service.ts";
import { createUser } from "../src/users/user.service.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedApiKey, seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;
let consumer: Consumer;
let nc: NatsConnection;
const received: EventEnvelope[] = [];

beforeAll(async () => {
  ctx = await startContent();
  nc = await connectBus(ctx.infra.natsUrl, "content-events-test");
  consumer = createConsumer({
    nc,
    natsPrefix: ctx.infra.natsPrefix,
    stream: streamNameFor(ctx.infra.natsPrefix, "content"),
    durable: "content_events_test",
    filterSubject: `${ctx.infra.natsPrefix}content.>`,
    logger: createLogger({ service: "content-events-test", level: "silent" }),
    handle: async (event) => {
      received.push(event);
      return ack;
    },
  });
  await consumer.start();
});

afterAll(async () => {
  await consumer?.stop();
  await nc?.drain();
  await ctx?.stop();
});

describe("outbox events", () => {
  it("has every event type in the contract", () => {
    expect(EVENT_DEFINITIONS.map((definition) => definition.type).filter((type) => type.startsWith("content.")).sort()).toEqual([
      "content.agent_sessions.ended",
      "content.announcement.cleared",
      "content.announcement.updated",
      "content.api_key.created",
      "content.api_key.revoked",
      "content.audit.recorded",
      "content.collector.created",
      "content.collector.retired",
      "content.collector.updated",
      "content.company.created",
      "content.environment.created",
      "content.environment.token_rotated",
      "content.field.created",
      "content.field.retired",
      "content.field.updated",
      "content.game.branding_updated",
      "content.game.created",
      "content.game.deleted",
      "content.game.routing_changed",
      "content.game.updated",
      "content.resource.created",
      "content.resource.removed",
      "content.resource.updated",
      "content.tag.created",
      "content.tag.retired",
      "content.tag.updated",
      "content.user.availability_changed",
      "content.user.created",
      "content.user.deactivated",
      "content.user.updated",
    ]);
  });

  it("publishes every change once, with the data its contract defines", async () => {
    const company = await seedCompany(ctx.db);
    const other = await seedCompany(ctx.db);
    const { apiKey, secret } = await seedApiKey(ctx.db, company.id);
    await revokeApiKey(ctx.db, apiKey.id, { actor: OPERATOR });
    await revokeApiKey(ctx.db, apiKey.id, { actor: OPERATOR }); // no change, no event
    const { game, environment } = await seedGame(ctx.db, company.id);
    await createResource(ctx.db, company.id, game.id, { key: "faq", title: "FAQ" });
    await createCollector(ctx.db, company.id, game.id, { ref: "contact", title: "Contact", contactForm: true, fields: [{ key: "topic", label: "Topic", type: "DROPDOWN", options: ["a"] }] });
    await createTag(ctx.db, company.id, { gameId: null, name: "bug", isSkill: true });
    await createUser(ctx.db, company.id, { name: "Alice", email: "alice@example.com", gameIds: [game.id], skills: ["bug"] });
    await createField(ctx.db, company.id, { gameId: game.id, key: "ship", name: "Ship", type: "dropdown", options: ["a"] });
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { en: "Shared" } });
    await ctx.client.putAnnouncement({ companyId: company.id, gameId: game.id, shortContent: { en: "Game" } });
    await ctx.client.putEnvironmentAnnouncement({ companyId: company.id, environmentId: environment.id, shortContent: { en: "Env" } });
    await ctx.client.deleteAnnouncement({ companyId: company.id, gameId: game.id });
    await ctx.client.deleteAnnouncement({ companyId: company.id, gameId: game.id }); // nothing to clear, no event
    await ctx.client.deleteEnvironmentAnnouncement({ companyId: company.id, environmentId: environment.id });
    await ctx.client.putAnnouncement({ companyId: company.id, shortContent: { fr: "no primary text" } }).catch(() => undefined); // refused
    await updateGame(ctx.db, company.id, game.id, { name: "Renamed" }, { actor: OPERATOR });
    await updateGame(ctx.db, company.id, game.id, { name: "Renamed" }, { actor: OPERATOR }); // no change, no event
    await rotateEnvironmentToken(ctx.db, company.id, game.id, environment.id, { overlapSeconds: 60 }, { actor: OPERATOR });
    await setGameBranding(ctx.db, company.id, game.id, { accentColor: "#ABC", colorScheme: "dark" }, { actor: OPERATOR });
    await setGameBranding(ctx.db, company.id, game.id, { accentColor: "#aabbcc", colorScheme: "dark" }, { actor: OPERATOR }); // no change, no event
    await deleteGame(ctx.db, game.id);

    const expected = {
      "content.company.created": 2,
      "content.api_key.created": 1,
      "content.api_key.revoked": 1,
      // The key's creation and its revocation, the game's change, the token's rotation and the branding, in the company's audit log.
      "content.audit.recorded": 5,
      "content.game.created": 1,
      "content.environment.created": 1,
      "content.resource.created": 1,
      "content.collector.created": 1,
      "content.user.created": 1,
      "content.tag.created": 1,
      "content.field.created": 1,
      "content.announcement.updated": 3,
      "content.announcement.cleared": 2,
      "content.game.updated": 1,
      "content.environment.token_rotated": 1,
      "content.game.branding_updated": 1,
      "content.game.deleted": 1,
    };
    const total = Object.values(expected).reduce((sum, n) => sum + n, 0);
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(total);
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(received).toHaveLength(total);
    expect(new Set(received.map((e) => e.id)).size).toBe(total);
    const counts: Record<string, number> = {};
    for (const event of received) counts[event.type] = (counts[event.type] ?? 0) + 1;
    expect(counts).toEqual(expected);

    for (const event of received) {
      expect(event.companyId, event.type).toBe(event.type === "content.company.created" && event.data.id === other.id ? other.id : company.id);
      expect(publishedEventProblems(event), event.type).toEqual([]);
    }

    const userCreated = received.find((e) => e.type === "content.user.created")!;
    expect(userCreated.data).toMatchObject({ name: "Alice", gameIds: [game.id], skills: ["bug"] });
    const revoked = received.find((e) => e.type === "content.api_key.revoked")!;
    expect(revoked.data).toMatchObject({ apiKeyId: apiKey.id, keyHash: apiKey.keyHash });
    const audited = received.filter((e) => e.type === "content.audit.recorded").map((e) => e.data);
    expect(audited).toMatchObject([
      { action: "api_key.created", actor: { type: "operator", id: null }, target: { type: "api_key", id: apiKey.id }, before: null, after: { name: apiKey.name, revokedAt: null } },
      { action: "api_key.revoked", actor: { type: "operator", id: null }, target: { type: "api_key", id: apiKey.id }, before: { revokedAt: null }, after: { revokedAt: expect.any(String) } },
      { action: "game.updated", target: { type: "game", id: game.id }, before: { name: game.name }, after: { name: "Renamed" } },
      { action: "environment.token_rotated", target: { type: "environment", id: environment.id }, before: { tokenPrefix: environment.token.slice(0, 8), previousTokenPrefix: null } },
      { action: "game.branding_changed", target: { type: "game", id: game.id }, before: { accentColor: null, colorScheme: "light", logo: null }, after: { accentColor: "#aabbcc", colorScheme: "dark", logo: null } },
    ]);
    expect(received.find((e) => e.type === "content.game.branding_updated")!.data).toMatchObject({ gameId: game.id, accentColor: "#aabbcc", colorScheme: "dark", logo: null });
    const rotated = received.find((e) => e.type === "content.environment.token_rotated")!;
    expect(rotated.data).toMatchObject({ id: environment.id, gameId: game.id, previousToken: environment.token });
    expect(JSON.stringify(audited)).not.toContain(environment.token);
    expect(received.find((e) => e.type === "content.game.updated")!.data).toMatchObject({ id: game.id, name: "Renamed" });
    expect(JSON.stringify(audited)).not.toContain(apiKey.keyHash);
    const cleared = received.filter((e) => e.type === "content.announcement.cleared").map((e) => e.data);
    expect(cleared).toEqual([
      { scope: "game", gameId: game.id, environmentId: null },
      { scope: "environment", gameId: game.id, environmentId: environment.id },
    ]);
    expect(JSON.stringify(received)).not.toContain(secret);
    expect(await ctx.db.selectFrom("outbox").selectAll().execute()).toEqual([]);
  });
});
