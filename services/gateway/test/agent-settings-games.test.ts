// Settings → Games over the real stack: an admin lists the company's games with their
// environments, creates a game and an environment, renames a game and changes its languages and
// blockUnverifiedPlayers, pastes its public keys and tests signed metadata tokens against them
// (the players service's own verification answers), and rotates an environment's public token:
// both tokens open sessions during the overlap, the previous one stops after it. Another
// company's game is a 404, an agent gets 403 on every operation, bad input is a 400 naming its
// path, and every change is in the audit log with before and after (tokens by prefix only).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { signingKey, signMetadata, type SigningKey } from "./signed-metadata.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@games.example`, abe: `abe-${suffix}@games.example`, oto: `oto-${suffix}@other.example` };

interface EnvironmentDto {
  id: string;
  gameId: string;
  name: string;
  token: string;
  createdAt: string;
  previousToken: string | null;
  previousTokenExpiresAt: string | null;
  tokenRotatedAt: string | null;
}
interface GameDto {
  id: string;
  name: string;
  slug: string;
  languages: string[];
  blockUnverifiedPlayers: boolean;
  metadataJwks: { keys: Record<string, unknown>[] } | null;
  environments: EnvironmentDto[];
}
interface AuditEntryDto {
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
let key: SigningKey;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PATCH" | "PUT", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const openSession = (token: string) => stack.request("/support/sessions", { method: "POST", json: { token } });
const auditLog = async () => {
  const response = await read(users.ada, "/agent-api/audit-log?limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  stack = await startStack();
  key = await signingKey("studio-2026");
  tenant = await stack.applyTenant({
    company: { name: "Games Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "production", name: "production" }] }],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  await stack.applyTenant({
    company: { name: "Other Studio" },
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

describe("games in the settings", () => {
  it("lists the company's games with their environments and tokens, never another company's", async () => {
    const listed = await read(users.ada, "/agent-api/settings/games");
    expect(listed.status, listed.text).toBe(200);
    const { games } = listed.body as { games: GameDto[] };
    expect(games).toHaveLength(1);
    expect(games[0]).toMatchObject({ name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en", "de"], blockUnverifiedPlayers: false, metadataJwks: null });
    expect(games[0]!.environments).toEqual([
      expect.objectContaining({ name: "production", token: expect.stringMatching(/^[0-9a-f-]{36}$/), previousToken: null, previousTokenExpiresAt: null }),
    ]);
    const theirs = ((await read(users.oto, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    expect(theirs.map((game) => game.name)).toEqual(["Theirs"]);
  });

  it("creates a game and an environment whose token opens sessions at once, and changes the game", async () => {
    const created = await write(users.ada, "POST", "/agent-api/settings/games", { name: "Nebula", slug: `nebula-${suffix}`, languages: ["en"], blockUnverifiedPlayers: false });
    expect(created.status, created.text).toBe(201);
    const game = created.body as GameDto;
    expect(game).toMatchObject({ name: "Nebula", languages: ["en"], environments: [] });

    const environment = await write(users.ada, "POST", `/agent-api/settings/games/${game.id}/environments`, { name: "production" });
    expect(environment.status, environment.text).toBe(201);
    const { token } = environment.body as EnvironmentDto;
    expect((await openSession(token)).status).toBe(200);
    expect((await write(users.ada, "POST", `/agent-api/settings/games/${game.id}/environments`, { name: "production" })).status).toBe(409);
    expect((await write(users.ada, "POST", "/agent-api/settings/games", { name: "Again", slug: `nebula-${suffix}`, languages: ["en"] })).status).toBe(409);

    const renamed = await write(users.ada, "PATCH", `/agent-api/settings/games/${game.id}`, { name: "Nebula Rising", languages: ["de", "en"] });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Nebula Rising", slug: `nebula-${suffix}`, languages: ["de", "en"], blockUnverifiedPlayers: false });
    expect((renamed.body as GameDto).environments.map((e) => e.token)).toEqual([token]);

    const strict = await write(users.ada, "PATCH", `/agent-api/settings/games/${game.id}`, { blockUnverifiedPlayers: true });
    expect(strict.body).toMatchObject({ name: "Nebula Rising", blockUnverifiedPlayers: true });
    // The players service reads the game on every session request: an unverified player is refused now.
    const refused = await stack.request("/support/sessions", { method: "POST", json: { token, player: { email: "p@example.com" } } });
    expect(refused.status, refused.text).toBe(400);

    const got = await read(users.ada, `/agent-api/settings/games/${game.id}`);
    expect(got.body).toMatchObject({ name: "Nebula Rising", blockUnverifiedPlayers: true, languages: ["de", "en"] });
    // The public API's game list (a gateway cache) sees the new name.
    const publicGames = await stack.request("/games", { key: tenant.apiKeys.main! });
    expect(publicGames.status, publicGames.text).toBe(200);
    expect(JSON.stringify(publicGames.body)).toContain("Nebula Rising");

    const entries = await auditLog();
    const ofGame = entries.filter((entry) => entry.target?.id === game.id);
    expect(ofGame.map((entry) => entry.action)).toEqual(["game.updated", "game.updated", "game.created"]);
    expect(ofGame[1]).toMatchObject({
      actor: { type: "user", id: users.ada.userId },
      before: { name: "Nebula", languages: ["en"] },
      after: { name: "Nebula Rising", languages: ["de", "en"] },
      clientAddress: expect.any(String),
    });
    const environmentEntry = entries.find((entry) => entry.action === "environment.created" && entry.target?.id === (environment.body as EnvironmentDto).id);
    expect(environmentEntry?.after).toMatchObject({ name: "production", tokenPrefix: token.slice(0, 8) });
    expect(JSON.stringify(entries)).not.toContain(token);
  });

  it("rotates a token: both work during the overlap, the previous one stops after it", async () => {
    const [game] = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    const environment = game!.environments[0]!;
    const oldToken = environment.token;
    const rotated = await write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/environments/${environment.id}/token-rotation`, { overlapSeconds: 3 });
    expect(rotated.status, rotated.text).toBe(200);
    const after = rotated.body as EnvironmentDto;
    expect(after.token).not.toBe(oldToken);
    expect(after.previousToken).toBe(oldToken);
    expect(Date.parse(after.previousTokenExpiresAt!) - Date.parse(after.tokenRotatedAt!)).toBe(3000);

    expect((await openSession(after.token)).status).toBe(200);
    expect((await openSession(oldToken)).status).toBe(200);
    await sleep(3500);
    expect((await openSession(after.token)).status).toBe(200);
    const stopped = await openSession(oldToken);
    expect(stopped.status, stopped.text).toBe(404);

    // The default overlap is 24 hours.
    const again = await write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/environments/${environment.id}/token-rotation`, {});
    const second = again.body as EnvironmentDto;
    expect(Date.parse(second.previousTokenExpiresAt!) - Date.parse(second.tokenRotatedAt!)).toBe(24 * 3600 * 1000);
    expect((await openSession(after.token)).status).toBe(200);

    const entry = (await auditLog()).find((e) => e.action === "environment.token_rotated" && e.target?.id === environment.id);
    expect(entry).toMatchObject({
      before: { tokenPrefix: after.token.slice(0, 8) },
      after: { tokenPrefix: second.token.slice(0, 8), previousTokenPrefix: after.token.slice(0, 8), previousTokenExpiresAt: second.previousTokenExpiresAt },
    });
    const log = JSON.stringify(await auditLog());
    for (const token of [oldToken, after.token, second.token]) expect(log).not.toContain(token);
  });

  it("keeps a game's public keys and tests signed metadata tokens against them", async () => {
    const [game] = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    const check = (token: string) => write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/metadata-token-checks`, { signedMetadataToken: token });
    const good = await signMetadata(key, { player: { id: "p-1", name: "Pat" } });

    const noKeys = await check(good);
    expect(noKeys.status, noKeys.text).toBe(200);
    expect(noKeys.body).toMatchObject({ verified: false, reason: "no_keys" });

    const secret = await write(users.ada, "PUT", `/agent-api/settings/games/${game!.id}/metadata-keys`, { metadataJwks: { keys: [key.privateJwk] } });
    expect(secret.status).toBe(400);
    expect(issuePaths(secret)).toContain("/metadataJwks/keys/0/d");

    const saved = await write(users.ada, "PUT", `/agent-api/settings/games/${game!.id}/metadata-keys`, { metadataJwks: { keys: [key.publicJwk] } });
    expect(saved.status, saved.text).toBe(200);
    expect((saved.body as GameDto).metadataJwks?.keys.map((k) => k.kid)).toEqual(["studio-2026"]);

    expect((await check(good)).body).toMatchObject({ verified: true, reason: null, kid: "studio-2026", metadata: { player: { id: "p-1", name: "Pat" } } });
    const stranger = await signingKey("studio-2026");
    expect((await check(await signMetadata(stranger, { player: { id: "p-1" } }))).body).toMatchObject({ verified: false, reason: "bad_signature" });
    expect((await check(await signMetadata(key, { player: { id: "p-1" } }, { exp: "-5m" }))).body).toMatchObject({ verified: false, reason: "expired" });
    expect((await check(await signMetadata(key, { player: { id: "p-1" } }, { kid: "nobody" }))).body).toMatchObject({ verified: false, reason: "unknown_kid" });
    expect((await check("not-a-token")).body).toMatchObject({ verified: false, reason: "malformed", message: expect.stringContaining("signed JWT") });
    // A session request with the same token answers what the tool said.
    const session = await stack.request("/support/sessions", { method: "POST", json: { token: game!.environments[0]!.token, signedMetadataToken: good } });
    expect(session.status, session.text).toBe(200);

    const removed = await write(users.ada, "PUT", `/agent-api/settings/games/${game!.id}/metadata-keys`, { metadataJwks: null });
    expect((removed.body as GameDto).metadataJwks).toBeNull();
    const entries = (await auditLog()).filter((entry) => entry.action === "game.metadata_keys_changed");
    expect(entries.map((entry) => [entry.before?.metadataKeyIds, entry.after?.metadataKeyIds])).toEqual([[["studio-2026"], null], [null, ["studio-2026"]]]);
  });
});

describe("scoping, roles and input", () => {
  it("answers 404 for another company's game and environment", async () => {
    const theirs = ((await read(users.oto, "/agent-api/settings/games")).body as { games: GameDto[] }).games[0]!;
    const environment = theirs.environments[0]!;
    const attempts = [
      await read(users.ada, `/agent-api/settings/games/${theirs.id}`),
      await write(users.ada, "PATCH", `/agent-api/settings/games/${theirs.id}`, { name: "Mine now" }),
      await write(users.ada, "PUT", `/agent-api/settings/games/${theirs.id}/metadata-keys`, { metadataJwks: null }),
      await write(users.ada, "POST", `/agent-api/settings/games/${theirs.id}/metadata-token-checks`, { signedMetadataToken: "a.b.c" }),
      await write(users.ada, "POST", `/agent-api/settings/games/${theirs.id}/environments`, { name: "staging" }),
      await write(users.ada, "POST", `/agent-api/settings/games/${theirs.id}/environments/${environment.id}/token-rotation`, { overlapSeconds: 0 }),
    ];
    for (const attempt of attempts) expect(attempt.status, attempt.text).toBe(404);
    // An environment of another game of the company's own is not found under this one either.
    const [mine] = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    const nebula = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games.find((game) => game.name === "Nebula Rising")!;
    expect((await write(users.ada, "POST", `/agent-api/settings/games/${nebula.id}/environments/${mine!.environments[0]!.id}/token-rotation`, {})).status).toBe(404);
    const still = ((await read(users.oto, "/agent-api/settings/games")).body as { games: GameDto[] }).games[0]!;
    expect(still).toMatchObject({ name: "Theirs", environments: [expect.objectContaining({ token: environment.token, previousToken: null })] });
  });

  it("refuses an agent every operation with 403", async () => {
    const [game] = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    const environment = game!.environments[0]!;
    const attempts = [
      await read(users.abe, "/agent-api/settings/games"),
      await read(users.abe, `/agent-api/settings/games/${game!.id}`),
      await write(users.abe, "POST", "/agent-api/settings/games", { name: "Sneaky", slug: `sneaky-${suffix}`, languages: ["en"] }),
      await write(users.abe, "PATCH", `/agent-api/settings/games/${game!.id}`, { name: "Sneaky" }),
      await write(users.abe, "PUT", `/agent-api/settings/games/${game!.id}/metadata-keys`, { metadataJwks: null }),
      await write(users.abe, "POST", `/agent-api/settings/games/${game!.id}/metadata-token-checks`, { signedMetadataToken: "a.b.c" }),
      await write(users.abe, "POST", `/agent-api/settings/games/${game!.id}/environments`, { name: "staging" }),
      await write(users.abe, "POST", `/agent-api/settings/games/${game!.id}/environments/${environment.id}/token-rotation`, {}),
    ];
    for (const attempt of attempts) {
      expect(attempt.status, attempt.text).toBe(403);
      expect(attempt.body).toMatchObject({ code: "permission_denied" });
    }
    expect(((await read(users.ada, `/agent-api/settings/games/${game!.id}`)).body as GameDto).name).toBe("Galaxy");
  });

  it("answers bad input with 400 naming its path", async () => {
    const [game] = ((await read(users.ada, "/agent-api/settings/games")).body as { games: GameDto[] }).games;
    const environment = game!.environments[0]!;
    const cases: [StackResponse, string][] = [
      [await write(users.ada, "POST", "/agent-api/settings/games", { name: "Bad", slug: "Not A Slug", languages: ["en"] }), "/slug"],
      [await write(users.ada, "POST", "/agent-api/settings/games", { name: "Bad", slug: `bad-${suffix}`, languages: [] }), "/languages"],
      [await write(users.ada, "POST", "/agent-api/settings/games", { name: "Bad", slug: `bad-${suffix}`, languages: ["en", "xx"] }), "/languages/1"],
      [await write(users.ada, "POST", "/agent-api/settings/games", { name: " ", slug: `bad-${suffix}`, languages: ["en"] }), "/name"],
      [await write(users.ada, "PATCH", `/agent-api/settings/games/${game!.id}`, { languages: [] }), "/languages"],
      [await write(users.ada, "PATCH", `/agent-api/settings/games/${game!.id}`, { slug: "renamed" }), "/slug"],
      [await write(users.ada, "PUT", `/agent-api/settings/games/${game!.id}/metadata-keys`, { metadataJwks: { key: [] } }), "/metadataJwks"],
      [await write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/environments`, { name: "" }), "/name"],
      [await write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/environments/${environment.id}/token-rotation`, { overlapSeconds: -1 }), "/overlapSeconds"],
      [await write(users.ada, "POST", `/agent-api/settings/games/${game!.id}/environments/${environment.id}/token-rotation`, { overlapSeconds: 40 * 24 * 3600 }), "/overlapSeconds"],
    ];
    for (const [response, path] of cases) {
      expect(response.status, response.text).toBe(400);
      expect(issuePaths(response), response.text).toContain(path);
    }
    const unchanged = (await read(users.ada, `/agent-api/settings/games/${game!.id}`)).body as GameDto;
    expect(unchanged.environments[0]!.token).toBe(environment.token);
  });
});
