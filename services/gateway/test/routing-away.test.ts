// Routing's away by silence (docs/automation.md): an available agent whose console was closed
// without signing out (no request on any of their sessions for AGENT_AWAY_AFTER_SECONDS) is set
// away by content's sweep, and their unanswered ticket goes to an agent whose console is open.
// Short clocks for the test: sessions idle out after 30 s (so a used session's last use is
// written every 3 s), away after 15 s of silence, a sweep every half second.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";

let stack: Stack;
let tenant: TenantResult;
const suffix = randomUUID().slice(0, 8);
const emails = { mia: `mia-${suffix}@away.example`, noah: `noah-${suffix}@away.example` };

beforeAll(async () => {
  stack = await startStack({
    gateway: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 },
    env: { AGENT_SESSION_IDLE_SECONDS: "30", AGENT_AWAY_AFTER_SECONDS: "15", AGENT_AWAY_SWEEP_INTERVAL_MS: "500" },
  });
  tenant = await stack.applyTenant({
    company: { name: `Away ${suffix}` },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "arena", name: "Arena", slug: `arena-${suffix}`, languages: ["en"], routing: true, environments: [{ ref: "arena-prod", name: "production" }] }],
    users: [
      { ref: "mia", name: "Mia", email: emails.mia, games: ["arena"] },
      { ref: "noah", name: "Noah", email: emails.noah, games: ["arena"] },
    ],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const setAvailable = async (agent: SignedInAgent) => expect((await agentWrite(stack, agent, "PUT", "/agent-api/me/availability", { available: true })).status).toBe(200);

describe("an available agent whose console went quiet", () => {
  it("is set away and their unanswered ticket goes to an agent whose console is open", async () => {
    const noah = await signInAgent(stack, emails.noah, PASSWORD);
    await setAvailable(noah);
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      json: { gameId: tenant.games.arena!.id, message: `Stuck ${randomUUID()}`, language: "en", channels: ["email"], metadata: { player: { id: "p-1", email: "p1@players.example" } } },
    });
    expect(created.status, created.text).toBe(200);
    const ticketId = (created.body as { ticketId: string }).ticketId;
    const assignee = async (agent: SignedInAgent) => ((await agentRead(stack, agent, `/agent-api/tickets/${ticketId}`)).body as { assigneeId: string | null }).assigneeId;
    await eventually(async () => (await assignee(noah)) === noah.userId, 15_000);

    // Noah's console closes without signing out: nothing uses his session from now on. Mia's
    // stays open, using her session every two seconds as the console does every minute.
    const mia = await signInAgent(stack, emails.mia, PASSWORD);
    await setAvailable(mia);
    let open = true;
    const keepOpen = (async () => {
      while (open) {
        await agentRead(stack, mia, "/agent-api/me");
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
    try {
      // Not before the silence is long enough.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(await assignee(mia)).toBe(noah.userId);
      await eventually(async () => (await assignee(mia)) === mia.userId, 30_000);
      const me = (await agentRead(stack, mia, "/agent-api/me")).body as { user: { available: boolean } };
      expect(me.user.available).toBe(true);
      const { changes } = (await agentRead(stack, mia, `/agent-api/tickets/${ticketId}/assignments`)).body as { changes: { toUserId: string | null; by: { type: string; id: string | null } }[] };
      expect(changes.map((change) => [change.toUserId, change.by.id])).toEqual([
        [noah.userId, "routing"],
        [null, "routing"],
        [mia.userId, "routing"],
      ]);
    } finally {
      open = false;
      await keepOpen;
    }
  }, 90_000);
});
