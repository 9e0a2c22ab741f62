// A player's scheduled deletion in the support application, over the real stack: the ticket
// view shows it, an agent of the ticket's game cancels it (CSRF, scope), the player's data stays,
// and players.deletion.cancelled (version 2) names the user who cancelled.
import { randomUUID } from "node:crypto";
import { connectBus, type NatsConnection } from "@support/bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@studio.example`, fay: `fay-${suffix}@studio.example` };

type Agent = SignedInAgent;

let stack: Stack;
let tenant: TenantResult;
let observer: NatsConnection;
const events: { type: string; version: number; data: Record<string, unknown> }[] = [];
const agents = {} as Record<keyof typeof emails, Agent>;
const origin = () => new URL(stack.url).origin;
const signIn = (email: string) => signInAgent(stack, email, PASSWORD);

const cancel = (agent: Agent, ticketId: string, csrf = agent.csrfToken) =>
  stack.request(`/agent-api/tickets/${ticketId}/player/scheduled-deletion`, { method: "DELETE", headers: { cookie: agent.cookie, origin: origin(), "x-csrf-token": csrf } });
const panel = async (agent: Agent, ticketId: string) =>
  ((await stack.request(`/agent-api/tickets/${ticketId}`, { headers: { cookie: agent.cookie } })).body as { player: { scheduledDeletion: unknown; record: { servicePlayerId: string } } }).player;

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Deletion Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Agent", email: emails.ada, role: "agent", games: ["galaxy"] },
      { ref: "fay", name: "Fay Farmer", email: emails.fay, role: "agent", games: ["farm"] },
    ],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  agents.ada = await signIn(emails.ada);
  agents.fay = await signIn(emails.fay);
  observer = await connectBus(stack.infra.natsUrl, "deletion-observer");
  const subscription = observer.subscribe(`${stack.infra.natsPrefix}players.deletion.>`);
  void (async () => {
    for await (const message of subscription) events.push(message.json());
  })();
}, 180_000);
afterAll(async () => {
  await observer?.drain();
  await stack?.stop();
});

describe("a scheduled deletion in the support application", () => {
  it("is shown in the ticket view and cancelled by an agent of the ticket's game, once", async () => {
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.galaxy!.id, message: "Please delete my data", language: "en", channels: ["email"], metadata: { player: { id: `p-${suffix}`, email: "del@example.com" } } },
    });
    const { ticketId } = created.body as { ticketId: string };
    expect((await panel(agents.ada, ticketId)).scheduledDeletion).toBeNull();
    const { servicePlayerId } = (await panel(agents.ada, ticketId)).record;
    const scheduled = await stack.request("/player/schedule-deletion", { method: "POST", key: tenant.apiKeys.main!, json: { servicePlayerId } });
    expect(scheduled.status, scheduled.text).toBe(200);
    const shown = (await panel(agents.ada, ticketId)).scheduledDeletion as { scheduledAt: string; dueAt: string; requestedBy: string };
    expect(shown).toEqual({ scheduledAt: expect.any(String), dueAt: expect.any(String), requestedBy: "api_key" });
    // Due a day after it was asked for (PLAYER_DELETION_DELAY_SECONDS).
    expect(Math.abs(Date.parse(shown.dueAt) - Date.parse(shown.scheduledAt) - 24 * 3600 * 1000)).toBeLessThan(5000);
    expect((await cancel(agents.fay, ticketId)).status).toBe(404);
    expect((await cancel(agents.ada, ticketId, "not-the-token")).status).toBe(403);
    const cancelled = await cancel(agents.ada, ticketId);
    expect(cancelled.status, cancelled.text).toBe(204);
    expect((await panel(agents.ada, ticketId)).scheduledDeletion).toBeNull();
    expect((await cancel(agents.ada, ticketId)).status).toBe(404);

    await expect.poll(() => events.find((event) => event.type === "players.deletion.cancelled"), { timeout: 5000 }).toMatchObject({
      version: 2,
      data: { playerId: servicePlayerId, cancelledBy: { type: "user", id: agents.ada.userId } },
    });
    // The player's data stays: the ticket is still there.
    expect((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body).toMatchObject({ tickets: [{ id: ticketId }] });
  });
});
