// The triage of the AI flags in the agent API over the real stack: the refusals and the scope
// (the flows themselves are in the tickets service's test/triage.test.ts and the console's
// test/triage.test.ts). The settings are the admins' (403 for an agent), a threshold outside
// 0.5..1 is a 400 at /threshold, another company's ticket and a ticket of a game the user does
// not have are 404, and an unknown suggestion is 404; each company's settings are its own.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@triage.example`, abe: `abe-${suffix}@triage.example`, oto: `oto-${suffix}@other.example` };

let stack: Stack;
let tenant: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;

async function newTicket(gameRef: string): Promise<string> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key: tenant.apiKeys.main!,
    json: { gameId: tenant.games[gameRef]!.id, message: "The game crashes on start", language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, email: `${randomUUID()}@players.example` } } },
  });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Triage Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
    tags: [{ name: "bug", game: null, isAiTag: true }],
  });
  await stack.applyTenant({ company: { name: "Other Studio" }, users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }] });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("the triage in the agent API", () => {
  it("keeps the settings to the company's admins, validates the threshold, and keeps companies apart", async () => {
    const initial = await agentRead(stack, users.ada, "/agent-api/settings/triage");
    expect(initial.status, initial.text).toBe(200);
    expect(initial.body).toEqual({ threshold: 0.8, model: null, set: { right: 0, wrong: 0, precision: null }, suggest: { right: 0, wrong: 0, precision: null }, byName: [] });
    for (const threshold of [0.3, 1.5, "0.9"]) {
      const refused = await agentWrite(stack, users.ada, "PATCH", "/agent-api/settings/triage", { threshold });
      expect(refused.status, refused.text).toBe(400);
      expect(issuePaths(refused)).toEqual(["/threshold"]);
    }
    const saved = await agentWrite(stack, users.ada, "PATCH", "/agent-api/settings/triage", { threshold: 0.95 });
    expect(saved.status, saved.text).toBe(200);
    expect((saved.body as { threshold: number }).threshold).toBe(0.95);
    // Nothing resolved yet: nothing to learn from, no model.
    const trained = await agentWrite(stack, users.ada, "POST", "/agent-api/settings/triage/train");
    expect(trained.status, trained.text).toBe(200);
    expect((trained.body as { model: unknown }).model).toBeNull();

    expect((await agentRead(stack, users.abe, "/agent-api/settings/triage")).status).toBe(403);
    expect((await agentWrite(stack, users.abe, "PATCH", "/agent-api/settings/triage", { threshold: 0.5 })).status).toBe(403);
    expect((await agentWrite(stack, users.abe, "POST", "/agent-api/settings/triage/train")).status).toBe(403);
    expect(((await agentRead(stack, users.oto, "/agent-api/settings/triage")).body as { threshold: number }).threshold).toBe(0.8);
  });

  it("answers a ticket's predictions in the user's scope only, and 404 for an unknown suggestion", async () => {
    const galaxy = await newTicket("galaxy");
    const farm = await newTicket("farm");
    const listed = await agentRead(stack, users.abe, `/agent-api/tickets/${galaxy}/triage`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({ predictions: [] });
    expect((await agentRead(stack, users.abe, `/agent-api/tickets/${farm}/triage`)).status).toBe(404);
    expect((await agentRead(stack, users.oto, `/agent-api/tickets/${galaxy}/triage`)).status).toBe(404);
    for (const decision of ["apply", "dismiss"]) {
      expect((await agentWrite(stack, users.abe, "POST", `/agent-api/tickets/${galaxy}/triage/${randomUUID()}/${decision}`)).status).toBe(404);
      expect((await agentWrite(stack, users.oto, "POST", `/agent-api/tickets/${galaxy}/triage/${randomUUID()}/${decision}`)).status).toBe(404);
    }
  });
});
