// Settings → Players over the real stack: an admin blocks players of a game by the game's player
// id or by email (one not seen yet is created blocked, and its tickets are refused), lists them
// newest first a page at a time, unblocks one, lists the company's scheduled deletions with who
// scheduled them and cancels one, and deletes a player's data at once where the company allows
// it (403 with the JSON error body where it does not, whatever the player). Agents get 403 on
// every operation, another company's game or player is 404, bad input is a 400 naming its path,
// and every change arrives in the company's audit log (recorded by the players service, handed to
// content as players.audit.recorded) with the admin as actor, before and after, and no email.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@players.example`, abe: `abe-${suffix}@players.example`, oto: `oto-${suffix}@other.example` };

interface PlayerDto {
  servicePlayerId: string;
  gameId: string;
  playerId: string | null;
  email: string | null;
  name: string | null;
  blocked: boolean;
  blockedAt: string | null;
}
interface DeletionDto {
  scheduleId: string;
  player: PlayerDto;
  requestedBy: { type: string; id: string | null };
  scheduledAt: string;
  dueAt: string;
}
interface AuditEntryDto {
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  detail: Record<string, unknown>;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
let other: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const galaxy = () => tenant.games.galaxy!.id;
const farm = () => tenant.games.farm!.id;
const blockedPath = (gameId: string) => `/agent-api/settings/games/${gameId}/blocked-players`;
const erasurePath = (gameId: string) => `/agent-api/settings/games/${gameId}/player-erasures`;

const block = async (user: SignedInAgent, gameId: string, key: { playerId?: string; email?: string }) => {
  const response = await write(user, "POST", blockedPath(gameId), key);
  expect(response.status, response.text).toBe(200);
  return response.body as PlayerDto;
};
const blockedPage = async (user: SignedInAgent, gameId: string, query = "") => {
  const response = await read(user, `${blockedPath(gameId)}${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body as { players: PlayerDto[]; pagination: { cursor: string | null } };
};
const deletions = async (user: SignedInAgent, query = "") => {
  const response = await read(user, `/agent-api/settings/scheduled-deletions${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body as { deletions: DeletionDto[]; pagination: { cursor: string | null } };
};
const schedule = async (company: TenantResult, servicePlayerId: string) => {
  const response = await stack.request("/player/schedule-deletion", { method: "POST", key: company.apiKeys.main!, json: { servicePlayerId } });
  expect(response.status, response.text).toBe(200);
};
const playerAudit = async (user: SignedInAgent) => {
  const response = await read(user, "/agent-api/audit-log?action=player.&limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};
const expectError = (response: StackResponse, status: number, code: string) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(response.body).toMatchObject({ code, message: expect.any(String) });
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Players Studio", primaryLanguage: "en", allowImmediateDeletion: true },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-production", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  other = await stack.applyTenant({
    company: { name: "Other Studio", primaryLanguage: "en", allowImmediateDeletion: false },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "theirs", name: "Theirs", slug: `theirs-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("players in the settings", () => {
  it("blocks by player id and by email, lists newest first a page at a time, unblocks; the audit log has each change without an email", async () => {
    const first = await block(users.ada, galaxy(), { playerId: `pat-${suffix}` });
    expect(first).toMatchObject({ gameId: galaxy(), playerId: `pat-${suffix}`, email: null, blocked: true, blockedAt: expect.any(String) });
    const second = await block(users.ada, galaxy(), { email: `Mia-${suffix}@Example.com` });
    expect(second).toMatchObject({ playerId: null, email: `Mia-${suffix}@Example.com`, blocked: true });
    const third = await block(users.ada, galaxy(), { playerId: `kim-${suffix}` });
    // Blocking again changes nothing (and records nothing).
    expect((await block(users.ada, galaxy(), { playerId: `pat-${suffix}` })).blockedAt).toBe(first.blockedAt);

    // The blocked player's new ticket is refused.
    const ticket = await stack.request("/tickets", {
      method: "POST", key: tenant.apiKeys.main!, json: { gameId: galaxy(), message: "Let me in", language: "en", channels: ["email"], metadata: { player: { id: `pat-${suffix}`, email: `pat-${suffix}@example.com` } } },
    });
    expect(ticket.status, ticket.text).toBe(400);
    expect(ticket.body).toMatchObject({ code: "failed_precondition", details: { type: "PLAYER_BLOCKED" } });

    const page1 = await blockedPage(users.ada, galaxy(), "?limit=2");
    expect(page1.players.map((p) => p.servicePlayerId)).toEqual([third.servicePlayerId, second.servicePlayerId]);
    expect(page1.pagination.cursor).toEqual(expect.any(String));
    const page2 = await blockedPage(users.ada, galaxy(), `?limit=2&cursor=${encodeURIComponent(page1.pagination.cursor!)}`);
    expect(page2.players.map((p) => p.servicePlayerId)).toEqual([first.servicePlayerId]);
    expect(page2.pagination.cursor).toBeNull();
    expect((await blockedPage(users.ada, farm())).players).toEqual([]);

    const unblocked = await write(users.ada, "DELETE", `${blockedPath(galaxy())}/${second.servicePlayerId}`);
    expect(unblocked.status, unblocked.text).toBe(200);
    expect(unblocked.body).toMatchObject({ servicePlayerId: second.servicePlayerId, blocked: false, blockedAt: null });
    expect((await blockedPage(users.ada, galaxy())).players.map((p) => p.servicePlayerId)).toEqual([third.servicePlayerId, first.servicePlayerId]);

    await expect.poll(async () => (await playerAudit(users.ada)).length, { timeout: 15_000 }).toBe(4);
    const entries = await playerAudit(users.ada);
    expect(entries.map((entry) => entry.action).sort()).toEqual(["player.blocked", "player.blocked", "player.blocked", "player.unblocked"]);
    for (const entry of entries) {
      expect(entry.actor).toMatchObject({ type: "user", id: users.ada.userId });
      expect(entry.clientAddress).toEqual(expect.any(String));
      expect(JSON.stringify(entry).toLowerCase()).not.toContain("example.com");
    }
    const blockedPat = entries.find((entry) => entry.action === "player.blocked" && entry.target?.id === first.servicePlayerId)!;
    expect(blockedPat).toMatchObject({ target: { type: "player", id: first.servicePlayerId }, before: null, after: { blocked: true }, detail: { gameId: galaxy(), playerId: `pat-${suffix}`, newPlayer: true } });
    expect(entries.find((entry) => entry.action === "player.unblocked")).toMatchObject({ target: { id: second.servicePlayerId }, before: { blocked: true }, after: { blocked: false }, detail: { playerId: null } });
  });

  it("lists scheduled deletions with who scheduled them and cancels one, once", async () => {
    const lee = await block(users.ada, farm(), { playerId: `lee-${suffix}` });
    const ray = await block(users.ada, galaxy(), { playerId: `ray-${suffix}` });
    await schedule(tenant, lee.servicePlayerId);
    await schedule(tenant, ray.servicePlayerId);

    const all = (await deletions(users.ada)).deletions;
    // The soonest due first (then by schedule id, for two due in the same millisecond).
    const soonest = [...all].sort((a, b) => a.dueAt.localeCompare(b.dueAt) || a.scheduleId.localeCompare(b.scheduleId));
    expect(all.map((d) => d.scheduleId)).toEqual(soonest.map((d) => d.scheduleId));
    expect(all.map((d) => d.player.servicePlayerId).sort()).toEqual([lee.servicePlayerId, ray.servicePlayerId].sort());
    const leeDeletion = all.find((d) => d.player.servicePlayerId === lee.servicePlayerId)!;
    const rayDeletion = all.find((d) => d.player.servicePlayerId === ray.servicePlayerId)!;
    expect(leeDeletion).toMatchObject({ player: { playerId: `lee-${suffix}`, gameId: farm() }, requestedBy: { type: "api_key", id: expect.any(String) }, dueAt: expect.any(String) });
    expect((await deletions(users.ada, `?gameId=${galaxy()}`)).deletions.map((d) => d.player.servicePlayerId)).toEqual([ray.servicePlayerId]);
    const paged = await deletions(users.ada, "?limit=1");
    expect(paged.deletions.map((d) => d.scheduleId)).toEqual([soonest[0]!.scheduleId]);
    expect((await deletions(users.ada, `?limit=1&cursor=${encodeURIComponent(paged.pagination.cursor!)}`)).deletions.map((d) => d.scheduleId)).toEqual([soonest[1]!.scheduleId]);
    // Another company sees none of them.
    expect((await deletions(users.oto)).deletions).toEqual([]);

    expectError(await write(users.oto, "DELETE", `/agent-api/settings/scheduled-deletions/${ray.servicePlayerId}`), 404, "not_found");
    const cancelled = await write(users.ada, "DELETE", `/agent-api/settings/scheduled-deletions/${ray.servicePlayerId}`);
    expect(cancelled.status, cancelled.text).toBe(204);
    expectError(await write(users.ada, "DELETE", `/agent-api/settings/scheduled-deletions/${ray.servicePlayerId}`), 404, "not_found");
    expect((await deletions(users.ada)).deletions.map((d) => d.player.servicePlayerId)).toEqual([lee.servicePlayerId]);

    await expect.poll(async () => (await playerAudit(users.ada)).filter((entry) => entry.action === "player.deletion_cancelled").length, { timeout: 15_000 }).toBe(1);
    const entry = (await playerAudit(users.ada)).find((e) => e.action === "player.deletion_cancelled")!;
    expect(entry).toMatchObject({
      actor: { type: "user", id: users.ada.userId }, target: { type: "player", id: ray.servicePlayerId },
      before: { dueAt: rayDeletion.dueAt, requestedBy: "api_key" }, after: null, detail: { gameId: galaxy(), playerId: `ray-${suffix}` },
    });
  });

  it("deletes a player's data now where the company allows it, and answers 403 where it does not", async () => {
    const gus = await block(users.ada, galaxy(), { email: `gus-${suffix}@example.com` });
    await schedule(tenant, gus.servicePlayerId);
    const erased = await write(users.ada, "POST", erasurePath(galaxy()), { email: `GUS-${suffix}@example.com` });
    expect(erased.status, erased.text).toBe(200);
    expect(erased.body).toMatchObject({ servicePlayerId: gus.servicePlayerId, erasureId: expect.any(String) });
    // The player is gone, with its block and its schedule.
    expect((await blockedPage(users.ada, galaxy())).players.map((p) => p.servicePlayerId)).not.toContain(gus.servicePlayerId);
    expect((await deletions(users.ada)).deletions.map((d) => d.player.servicePlayerId)).not.toContain(gus.servicePlayerId);
    expectError(await write(users.ada, "POST", erasurePath(galaxy()), { email: `gus-${suffix}@example.com` }), 404, "not_found");
    expectError(await write(users.ada, "POST", erasurePath(galaxy()), { playerId: `nobody-${suffix}` }), 404, "not_found");

    await expect.poll(async () => (await playerAudit(users.ada)).filter((entry) => entry.action === "player.deleted").length, { timeout: 15_000 }).toBe(1);
    const entry = (await playerAudit(users.ada)).find((e) => e.action === "player.deleted")!;
    expect(entry).toMatchObject({ actor: { type: "user", id: users.ada.userId }, target: { type: "player", id: gus.servicePlayerId }, detail: { erasureId: (erased.body as { erasureId: string }).erasureId, trigger: "immediate", gameId: galaxy() } });
    expect(JSON.stringify(entry)).not.toContain("gus-");

    // Not allowed for the other company: 403, for a known player and an unknown one alike, and nothing erased.
    expect((await read(users.oto, "/agent-api/settings/players/immediate-deletion")).body).toEqual({ allowed: false });
    expect((await read(users.ada, "/agent-api/settings/players/immediate-deletion")).body).toEqual({ allowed: true });
    const theirs = other.games.theirs!.id;
    const kept = await block(users.oto, theirs, { playerId: `zed-${suffix}` });
    const refused = await write(users.oto, "POST", erasurePath(theirs), { playerId: `zed-${suffix}` });
    expectError(refused, 403, "permission_denied");
    expect((refused.body as { message: string }).message).toContain("not enabled");
    expectError(await write(users.oto, "POST", erasurePath(theirs), { playerId: `nobody-${suffix}` }), 403, "permission_denied");
    expect((await blockedPage(users.oto, theirs)).players.map((p) => p.servicePlayerId)).toEqual([kept.servicePlayerId]);
  });

  it("keeps companies apart: another company's game or player is 404", async () => {
    const theirs = other.games.theirs!.id;
    expectError(await write(users.ada, "POST", blockedPath(theirs), { playerId: `x-${suffix}` }), 404, "not_found");
    expectError(await write(users.ada, "POST", erasurePath(theirs), { playerId: `x-${suffix}` }), 404, "not_found");
    const zed = (await blockedPage(users.oto, theirs)).players[0]!;
    expectError(await write(users.ada, "DELETE", `${blockedPath(galaxy())}/${zed.servicePlayerId}`), 404, "not_found");
    expectError(await write(users.ada, "DELETE", `${blockedPath(theirs)}/${zed.servicePlayerId}`), 404, "not_found");
    expect((await blockedPage(users.ada, theirs)).players).toEqual([]);
    // A player of another game of the same company is not this game's.
    const pat = (await blockedPage(users.ada, galaxy())).players.find((p) => p.playerId === `pat-${suffix}`)!;
    expectError(await write(users.ada, "DELETE", `${blockedPath(farm())}/${pat.servicePlayerId}`), 404, "not_found");
  });

  it("refuses bad input with a 400 naming its path", async () => {
    const neither = await write(users.ada, "POST", blockedPath(galaxy()), {});
    expectError(neither, 400, "invalid_argument");
    expect(issuePaths(neither)).toEqual(["/playerId"]);
    const both = await write(users.ada, "POST", blockedPath(galaxy()), { playerId: "p1", email: "p1@example.com" });
    expectError(both, 400, "invalid_argument");
    expect(issuePaths(both)).toEqual(["/email"]);
    const badEmail = await write(users.ada, "POST", blockedPath(galaxy()), { email: "not an email" });
    expectError(badEmail, 400, "invalid_argument");
    expect(issuePaths(badEmail)).toContain("/email");
    const blank = await write(users.ada, "POST", blockedPath(galaxy()), { playerId: "   " });
    expectError(blank, 400, "invalid_argument");
    expect(issuePaths(blank)).toContain("/playerId");
    expectError(await write(users.ada, "POST", blockedPath(galaxy()), { playerId: "x".repeat(256) }), 400, "invalid_argument");
    expectError(await write(users.ada, "POST", blockedPath(galaxy()), { playerId: "p1", tier: 2 }), 400, "invalid_argument");
    expectError(await write(users.ada, "POST", blockedPath("not-a-game"), { playerId: "p1" }), 400, "invalid_argument");
    expectError(await write(users.ada, "DELETE", `${blockedPath(galaxy())}/not-a-player`), 400, "invalid_argument");
    expectError(await write(users.ada, "POST", erasurePath(galaxy()), {}), 400, "invalid_argument");
    expectError(await read(users.ada, `${blockedPath(galaxy())}?limit=0`), 400, "invalid_argument");
    expectError(await read(users.ada, `${blockedPath(galaxy())}?cursor=garbage`), 400, "invalid_argument");
    expectError(await read(users.ada, "/agent-api/settings/scheduled-deletions?gameId=nope"), 400, "invalid_argument");
    expectError(await write(users.ada, "DELETE", "/agent-api/settings/scheduled-deletions/not-a-player"), 400, "invalid_argument");
  });

  it("answers an agent 403 on every operation, before anything is read or changed", async () => {
    const someone = randomUUID();
    const calls: [string, () => Promise<StackResponse>][] = [
      ["getAgentSettingsImmediateDeletion", () => read(users.abe, "/agent-api/settings/players/immediate-deletion")],
      ["listAgentSettingsBlockedPlayers", () => read(users.abe, blockedPath(galaxy()))],
      ["blockAgentSettingsPlayer", () => write(users.abe, "POST", blockedPath(galaxy()), { playerId: `agent-${suffix}` })],
      ["unblockAgentSettingsPlayer", () => write(users.abe, "DELETE", `${blockedPath(galaxy())}/${someone}`)],
      ["deleteAgentSettingsPlayer", () => write(users.abe, "POST", erasurePath(galaxy()), { playerId: `pat-${suffix}` })],
      ["listAgentSettingsScheduledDeletions", () => read(users.abe, "/agent-api/settings/scheduled-deletions")],
      ["cancelAgentSettingsPlayerDeletion", () => write(users.abe, "DELETE", `/agent-api/settings/scheduled-deletions/${someone}`)],
    ];
    for (const [operation, call] of calls) {
      const response = await call();
      expect(response.status, `${operation}: ${response.text}`).toBe(403);
      expect(response.body, operation).toMatchObject({ code: "permission_denied", message: expect.any(String) });
    }
    expect((await blockedPage(users.ada, galaxy())).players.map((p) => p.playerId)).not.toContain(`agent-${suffix}`);
    expect((await blockedPage(users.ada, galaxy())).players.map((p) => p.playerId)).toContain(`pat-${suffix}`);
    // Without the CSRF token an admin's change is refused too.
    const noCsrf = await stack.request(blockedPath(galaxy()), { method: "POST", headers: { cookie: users.ada.cookie, origin: new URL(stack.url).origin }, json: { playerId: `csrf-${suffix}` } });
    expect(noCsrf.status, noCsrf.text).toBe(403);
  });
});
