// Canned responses over the real RPC and Postgres: admins write them (audit log), validation
// names the failing path, names are unique per scope, a retired one is no longer offered, and
// rendering for a ticket picks the ticket's language (or the nearest) and fills placeholders.
import { randomUUID } from "node:crypto";
import { CannedResponseService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../src/audit/audit-log.ts";
import { applyTenant } from "../src/tenants/tenant.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";

let ctx: ContentTestContext;
let client: ReturnType<typeof createServiceClient<typeof CannedResponseService>>;
let companyId: string;
let otherCompanyId: string;
let adminId: string;
let agentId: string;
let galaxyId: string;
let farmId: string;

beforeAll(async () => {
  ctx = await startContent();
  client = createServiceClient(CannedResponseService, ctx.baseUrl);
  const suffix = randomUUID().slice(0, 8);
  const applied = await applyTenant(ctx.db, randomUUID().replaceAll("-", "").padEnd(64, "c"), {
    company: { name: `Canned Studio ${suffix}`, primaryLanguage: "en" },
    games: [
      { ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en", "de"] },
      { ref: "farm", name: "Farm", slug: "farm", languages: ["en"] },
    ],
    users: [
      { ref: "dana", name: "Dana Admin", email: `dana-${suffix}@studio.example`, role: "admin" },
      { ref: "ada", name: "Ada Agent", email: `ada-${suffix}@studio.example`, role: "agent", games: ["galaxy"] },
    ],
  });
  companyId = applied.companyId;
  adminId = applied.users.find((user) => user.ref === "dana")!.userId;
  agentId = applied.users.find((user) => user.ref === "ada")!.userId;
  galaxyId = applied.games.find((game) => game.ref === "galaxy")!.gameId;
  farmId = applied.games.find((game) => game.ref === "farm")!.gameId;
  otherCompanyId = (await applyTenant(ctx.db, randomUUID().replaceAll("-", "").padEnd(64, "d"), { company: { name: `Other ${suffix}` } })).companyId;
});
afterAll(() => ctx?.stop());

const greeting = {
  name: "Greeting",
  texts: { en: "Hello {{player.name}}, this is {{agent.name}} about ticket #{{ticket.number}} in {{game.name}}.", de: "Hallo {{ player.name }}, hier ist {{agent.name}}." },
  actions: { addTags: ["bug"], status: "waiting", resolve: false },
};

describe("canned responses", () => {
  it("are written by an admin, listed by game scope, and recorded in the audit log", async () => {
    const created = (await client.createCannedResponse({ companyId, actingUserId: adminId, response: greeting })).response!;
    expect(created).toMatchObject({ name: "Greeting", texts: greeting.texts, actions: { addTags: ["bug"], status: "waiting", resolve: false }, createdBy: adminId });
    expect(created.gameId).toBeUndefined();
    await client.createCannedResponse({ companyId, actingUserId: adminId, response: { gameId: farmId, name: "Crops", texts: { en: "Your crops are back." }, actions: { resolve: true } } });

    const forGalaxy = (await client.listCannedResponses({ companyId, gameIds: [galaxyId] })).responses.map((r) => r.name);
    expect(forGalaxy).toEqual(["Greeting"]);
    const all = (await client.listCannedResponses({ companyId, allGames: true })).responses.map((r) => r.name);
    expect(all).toEqual(["Crops", "Greeting"]);
    expect((await client.listCannedResponses({ companyId: otherCompanyId, allGames: true })).responses).toEqual([]);

    const audit = await listAudit(ctx.db, companyId, { limit: 10 });
    expect(audit.filter((entry) => entry.action === "canned_response.created").map((entry) => entry.detail.name)).toEqual(["Crops", "Greeting"]);
  });

  it("refuses an agent, a bad text or action with its path, and a taken name", async () => {
    expect((await failureOf(client.createCannedResponse({ companyId, actingUserId: agentId, response: { name: "Mine", texts: { en: "x" } } }))).code).toBe("permission_denied");
    const bad = await failureOf(
      client.createCannedResponse({ companyId, actingUserId: adminId, response: { name: "Bad", texts: { en: "Hi {{player.age}}", xx: "?" }, actions: { status: "closed", resolve: false } } }),
    );
    expect(bad.code).toBe("invalid_argument");
    expect(bad.issues!.map((issue) => issue.path).sort()).toEqual(["/actions/status", "/texts/en", "/texts/xx"]);
    const both = await failureOf(client.createCannedResponse({ companyId, actingUserId: adminId, response: { name: "Both", texts: { en: "x" }, actions: { status: "on_hold", resolve: true } } }));
    expect(both.issues!.map((issue) => issue.path)).toEqual(["/actions/status"]);
    expect((await failureOf(client.createCannedResponse({ companyId, actingUserId: adminId, response: { name: "greeting", texts: { en: "again" } } }))).code).toBe("conflict");
    expect((await failureOf(client.createCannedResponse({ companyId, actingUserId: "", response: { name: "Nobody", texts: { en: "x" } } }))).code).toBe("invalid_argument");
  });

  it("renders for a ticket in its language, else the nearest, with the placeholders filled", async () => {
    const values = { "player.name": "Pat", "agent.name": "Ada", "ticket.number": "42", "game.name": "Galaxy" };
    const english = (await client.renderCannedResponses({ companyId, gameId: galaxyId, language: "en", values })).responses;
    expect(english.map((r) => [r.response!.name, r.language, r.text])).toEqual([["Greeting", "en", "Hello Pat, this is Ada about ticket #42 in Galaxy."]]);
    const german = (await client.renderCannedResponses({ companyId, gameId: galaxyId, language: "de-AT", values: { "agent.name": "Ada" } })).responses;
    expect(german[0]).toMatchObject({ language: "de", text: "Hallo , hier ist Ada." });
    const japanese = (await client.renderCannedResponses({ companyId, gameId: galaxyId, language: "ja", values })).responses;
    expect(japanese[0]!.language).toBe("en");
  });

  it("updates and retires: a retired response is no longer offered", async () => {
    const [greetingResponse] = (await client.listCannedResponses({ companyId, gameIds: [galaxyId] })).responses;
    const updated = (await client.updateCannedResponse({ companyId, actingUserId: adminId, id: greetingResponse!.id, response: { ...greeting, name: "Hello" } })).response!;
    expect(updated.name).toBe("Hello");
    await client.retireCannedResponse({ companyId, actingUserId: adminId, id: greetingResponse!.id });
    expect((await client.listCannedResponses({ companyId, gameIds: [galaxyId] })).responses).toEqual([]);
    expect((await failureOf(client.retireCannedResponse({ companyId, actingUserId: adminId, id: greetingResponse!.id }))).code).toBe("not_found");
    expect((await failureOf(client.retireCannedResponse({ companyId: otherCompanyId, actingUserId: adminId, id: greetingResponse!.id }))).code).toBe("permission_denied");
  });
});
