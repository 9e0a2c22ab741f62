// The operators' admin command end to end: run as a child process against the test database,
// with its results checked through the running service (and, for players, in the players
// schema of the same database).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlayersDatabase } from "@support/players";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";

const cliPath = fileURLToPath(new URL("../src/admin/cli.ts", import.meta.url));
const demoTenant = JSON.parse(readFileSync(new URL("../../../scripts/demo-tenant.json", import.meta.url), "utf8"));

let ctx: ContentTestContext;
let workDir: string;

beforeAll(async () => {
  ctx = await startContent();
  workDir = mkdtempSync(join(tmpdir(), "content-admin-"));
});

afterAll(async () => {
  await ctx?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], stdin?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      env: { PATH: process.env.PATH, DATABASE_URL: ctx.infra.databaseUrl, LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

let fileCounter = 0;
function tenantFile(content: unknown): string {
  fileCounter += 1;
  const path = join(workDir, `tenant-${fileCounter}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function counts() {
  const count = async (table: "companies" | "games" | "api_keys" | "announcements") =>
    Number((await ctx.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return {
    companies: await count("companies"),
    games: await count("games"),
    apiKeys: await count("api_keys"),
    announcements: await count("announcements"),
  };
}

/**
 * players.players rows (of one company, or all), oldest first (rows of one transaction share
 * created_at: then by player id, email players last); none before the schema exists.
 */
async function playerRows(companyId?: string) {
  const table = await sql<{ name: string | null }>`select to_regclass('players.players')::text as name`.execute(ctx.db);
  if (!table.rows[0]?.name) return [];
  let query = (ctx.db as unknown as Kysely<PlayersDatabase>)
    .withSchema("players")
    .selectFrom("players")
    .select(["company_id", "game_id", "external_id", "email", "blocked"])
    .orderBy("created_at")
    .orderBy("external_id")
    .orderBy("email")
    .orderBy("id");
  if (companyId !== undefined) query = query.where("company_id", "=", companyId);
  return query.execute();
}

async function playerEventTypes(companyId: string) {
  const rows = await sql<{ type: string }>`select type from players.outbox where company_id = ${companyId} order by seq`.execute(ctx.db);
  return rows.rows.map((row) => row.type);
}

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

describe("pnpm admin apply", () => {
  it("creates a company from the demo tenant file and prints one JSON object of ids and secrets", async () => {
    const run = await runCli(["apply", tenantFile(demoTenant)]);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output).toEqual({
      companyId: uuid,
      apiKeys: { demo: expect.stringMatching(/^psk_[A-Za-z0-9_-]{43}$/) },
      games: {
        galaxy: { id: uuid, environments: { "galaxy-production": { id: uuid, token: uuid }, "galaxy-staging": { id: uuid, token: uuid } } },
        farm: { id: uuid, environments: { "farm-production": { id: uuid, token: uuid } } },
      },
      users: { alice: uuid },
    });

    // The secret works through the service, by its hash.
    const auth = await ctx.client.authenticateApiKey({ keyHash: sha256(output.apiKeys.demo) });
    expect(auth.companyId).toBe(output.companyId);

    const companyId = output.companyId as string;
    const company = (await ctx.client.getCompany({ companyId })).company;
    expect(company).toMatchObject({ name: "Demo Games Studio", primaryLanguage: "en", allowImmediateDeletion: true, autoCloseWaitingAfterHours: 168 });
    const games = (await ctx.client.listGames({ companyId })).games;
    expect(games.map((g) => g.slug)).toEqual(["galaxy-raiders", "pixel-farm"]);
    const galaxy = await ctx.client.getGame({ companyId, gameId: output.games.galaxy.id });
    expect(galaxy.environments.map((e) => [e.name, e.token])).toEqual([
      ["production", output.games.galaxy.environments["galaxy-production"].token],
      ["staging", output.games.galaxy.environments["galaxy-staging"].token],
    ]);
    expect(galaxy.resources.map((r) => r.key)).toEqual(["billing", "faq"]);
    expect(games.find((g) => g.slug === "pixel-farm")?.blockUnverifiedPlayers).toBe(true);

    // An environment announcement is an override, resolved for that environment only and not listed.
    const production = await ctx.client.resolveAnnouncement({ companyId, environmentId: output.games.galaxy.environments["galaxy-production"].id });
    expect(production).toMatchObject({ source: "environment", announcement: { shortContent: { en: "Season 3 is live!" } } });
    const staging = await ctx.client.resolveAnnouncement({ companyId, environmentId: output.games.galaxy.environments["galaxy-staging"].id });
    expect(staging.source).toBe("none");
    expect((await ctx.client.listAnnouncements({ companyId })).announcements).toEqual([]);

    expect((await ctx.client.listTags({ companyId })).tags).toHaveLength(5);
    const fields = (await ctx.client.listFields({ companyId })).fields;
    expect(fields.find((f) => f.key === "ship_class")).toMatchObject({ type: "dropdown", options: ["fighter", "freighter", "explorer"] });
    const access = await ctx.client.checkUserAccess({ companyId, userId: output.users.alice, gameId: output.games.farm.id });
    expect(access.hasAccess).toBe(true);

    // Its events went to the outbox, and the running service's relay published them.
    const pending = ctx.db.selectFrom("outbox").select("type").where("company_id", "=", companyId);
    await expect.poll(() => pending.execute(), { timeout: 10_000 }).toEqual([]);
  });

  it("creates a new company on every apply and reads the file from stdin with -", async () => {
    const file = { company: { name: "Stdin Studio", primaryLanguage: "de", autoCloseWaitingAfterHours: 1.5 }, apiKeys: [{ name: "a" }, { name: "b" }] };
    const first = await runCli(["apply", "-"], JSON.stringify(file));
    const second = await runCli(["apply", "-"], JSON.stringify(file));
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const [a, b] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
    expect(a.companyId).not.toBe(b.companyId);
    expect(Object.keys(a.apiKeys)).toEqual(["a", "b"]);
    expect(a).toMatchObject({ games: {}, users: {} });
    const company = (await ctx.client.getCompany({ companyId: a.companyId })).company;
    expect(company).toMatchObject({ primaryLanguage: "de", autoCloseWaitingAfterHours: 1.5, allowImmediateDeletion: false });
  });

  it("names the bad path of an invalid file and changes nothing", async () => {
    const before = await counts();
    const bad = structuredClone(demoTenant);
    bad.games[0].languages = ["en", "klingon"];
    bad.users[0].games.push("unknown-game");
    const run = await runCli(["apply", tenantFile(bad)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("games/0/languages/1: must be equal to one of the allowed values");
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: "invalid_argument", issues: [{ path: "games/0/languages/1" }] } });

    const badRef = structuredClone(demoTenant);
    badRef.tags.push({ name: "orphan", game: "nowhere" });
    const refRun = await runCli(["apply", tenantFile(badRef)]);
    expect(refRun.code).toBe(2);
    expect(refRun.stderr).toContain('tags/5/game: unknown game ref "nowhere"');
    expect(await counts()).toEqual(before);
  });

  it("rolls everything back when a later entry fails inside the transaction", async () => {
    const before = await counts();
    const bad = structuredClone(demoTenant);
    bad.company.primaryLanguage = "fr";
    bad.games[0].environments[0].announcement = { shortContent: { en: "Season 3" } };
    const run = await runCli(["apply", tenantFile(bad)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("games/0/environments/0/announcement/shortContent/fr");
    expect(await counts()).toEqual(before);
  });

  it("blocks the file's blockedPlayers, by player id or email, for the right game", async () => {
    const file = {
      ...demoTenant,
      blockedPlayers: [
        { game: "galaxy", playerId: "p-1" },
        { game: "farm", email: "Cheater@Example.com" },
      ],
    };
    const run = await runCli(["apply", tenantFile(file)]);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(Object.keys(output)).toEqual(["companyId", "apiKeys", "games", "users"]);
    expect(await playerRows(output.companyId)).toEqual([
      { company_id: output.companyId, game_id: output.games.galaxy.id, external_id: "p-1", email: null, blocked: true },
      { company_id: output.companyId, game_id: output.games.farm.id, external_id: null, email: "Cheater@Example.com", blocked: true },
    ]);
    // Through the players use cases: each block wrote its events to players.outbox.
    expect(await playerEventTypes(output.companyId)).toEqual([
      "players.player.created",
      "players.player.blocked",
      "players.player.created",
      "players.player.blocked",
    ]);
  });

  it("names the path of a bad blocked player and changes nothing, players included", async () => {
    const before = { ...(await counts()), players: (await playerRows()).length };
    const after = async () => ({ ...(await counts()), players: (await playerRows()).length });

    const both = await runCli(["apply", tenantFile({ ...demoTenant, blockedPlayers: [{ game: "galaxy", playerId: "p-2", email: "p2@example.com" }] })]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("blockedPlayers/0: give exactly one of playerId and email");
    expect(JSON.parse(both.stdout)).toMatchObject({ error: { code: "invalid_argument", issues: [{ path: "blockedPlayers/0" }] } });

    const unknownGame = await runCli([
      "apply",
      tenantFile({ ...demoTenant, blockedPlayers: [{ game: "galaxy", playerId: "p-2" }, { game: "nowhere", playerId: "p-3" }] }),
    ]);
    expect(unknownGame.code).toBe(2);
    expect(unknownGame.stderr).toContain('blockedPlayers/1/game: unknown game ref "nowhere"');
    expect(await after()).toEqual(before);

    // A rule checked only while creating fails after the players were blocked: the one
    // transaction takes the blocks back with the company.
    const late = structuredClone(demoTenant);
    late.blockedPlayers = [{ game: "galaxy", playerId: "p-4" }];
    late.fields.push({ key: "blank_option", name: "Blank option", type: "dropdown", game: null, options: [" "] });
    const lateRun = await runCli(["apply", tenantFile(late)]);
    expect(lateRun.code).toBe(2);
    expect(lateRun.stderr).toContain(`fields/${late.fields.length - 1}/options/0: must be a nonblank string`);
    expect(await after()).toEqual(before);
  });

  it("answers 2 for a file that is missing or not JSON", async () => {
    expect((await runCli(["apply", join(workDir, "missing.json")])).code).toBe(2);
    const notJson = join(workDir, "not.json");
    writeFileSync(notJson, "{ company: ");
    const run = await runCli(["apply", notJson]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is not valid JSON");
  });
});

describe("pnpm admin players", () => {
  it("blocks and unblocks a player of a game, by player id or email", async () => {
    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoTenant)])).stdout);
    const { companyId } = tenant;
    const gameId = tenant.games.galaxy.id as string;

    const blocked = await runCli(["players", "block", "--game", gameId.toUpperCase(), "--player-id", "p1"]);
    expect(blocked.code, blocked.stderr).toBe(0);
    const player = JSON.parse(blocked.stdout);
    expect(player).toEqual({ playerId: uuid, companyId, gameId, externalId: "p1", email: null, name: null, tier: 1, blocked: true, created: true });
    expect(await playerRows(companyId)).toEqual([{ company_id: companyId, game_id: gameId, external_id: "p1", email: null, blocked: true }]);

    // Blocking again changes nothing.
    const again = await runCli(["players", "block", "--game", gameId, "--player-id", "p1"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...player, created: false });

    const unblocked = await runCli(["players", "unblock", "--game", gameId, "--player-id", "p1"]);
    expect(unblocked.code, unblocked.stderr).toBe(0);
    expect(JSON.parse(unblocked.stdout)).toEqual({ ...player, blocked: false, created: false });
    expect(await playerRows(companyId)).toEqual([{ company_id: companyId, game_id: gameId, external_id: "p1", email: null, blocked: false }]);

    // An email player of the other game; the same player id in another game is another player.
    const byEmail = await runCli(["players", "block", "--game", tenant.games.farm.id, "--email", "web@example.com"]);
    expect(byEmail.code, byEmail.stderr).toBe(0);
    expect(JSON.parse(byEmail.stdout)).toMatchObject({ gameId: tenant.games.farm.id, externalId: null, email: "web@example.com", tier: null, blocked: true, created: true });
    expect(await playerEventTypes(companyId)).toEqual([
      "players.player.created",
      "players.player.blocked",
      "players.player.unblocked",
      "players.player.created",
      "players.player.blocked",
    ]);

    const unknownPlayer = await runCli(["players", "unblock", "--game", gameId, "--email", "nobody@example.com"]);
    expect(unknownPlayer.code).toBe(1);
    expect(JSON.parse(unknownPlayer.stdout)).toMatchObject({ error: { code: "not_found", message: "player not found" } });
  });

  it("answers 1 for an unknown or deleted game and 2 for a usage error", async () => {
    const unknownGame = await runCli(["players", "block", "--game", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11", "--player-id", "p1"]);
    expect(unknownGame.code).toBe(1);
    expect(JSON.parse(unknownGame.stdout)).toEqual({ error: { code: "not_found", message: "game not found" } });

    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoTenant)])).stdout);
    expect((await runCli(["games", "delete", tenant.games.farm.id])).code).toBe(0);
    const deletedGame = await runCli(["players", "block", "--game", tenant.games.farm.id, "--player-id", "p1"]);
    expect(deletedGame.code).toBe(1);
    expect(deletedGame.stderr).toContain("game not found");

    const rowsBefore = await playerRows();
    const missing = await runCli(["players", "block", "--game", tenant.games.galaxy.id]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: "usage", message: "players block needs exactly one of --player-id and --email" } });
    const both = await runCli(["players", "unblock", "--game", tenant.games.galaxy.id, "--player-id", "p1", "--email", "a@example.com"]);
    expect(both.code).toBe(2);
    const badEmail = await runCli(["players", "block", "--game", tenant.games.galaxy.id, "--email", "not-an-email"]);
    expect(badEmail.code).toBe(2);
    expect(JSON.parse(badEmail.stdout)).toMatchObject({ error: { code: "invalid_argument", issues: [{ path: "email", message: "must be an email address" }] } });
    expect(await playerRows()).toEqual(rowsBefore);
  });
});

describe("pnpm admin api-keys and games", () => {
  it("creates and revokes an API key", async () => {
    const tenant = JSON.parse((await runCli(["apply", "-"], JSON.stringify({ company: { name: "Keys" } }))).stdout);
    const created = await runCli(["api-keys", "create", "--company", tenant.companyId, "--name", "ci"]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toEqual({ apiKeyId: uuid, name: "ci", secret: expect.stringMatching(/^psk_/) });
    expect((await ctx.client.authenticateApiKey({ keyHash: sha256(key.secret) })).apiKeyId).toBe(key.apiKeyId);

    const revoked = await runCli(["api-keys", "revoke", key.apiKeyId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ apiKeyId: key.apiKeyId, revoked: true });
    expect((await failureOf(ctx.client.authenticateApiKey({ keyHash: sha256(key.secret) }))).code).toBe("not_found");

    const unknown = await runCli(["api-keys", "revoke", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("api key not found");
    const noCompany = await runCli(["api-keys", "create", "--company", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11", "--name", "x"]);
    expect(noCompany.code).toBe(1);
  });

  it("soft-deletes a game", async () => {
    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoTenant)])).stdout);
    const deleted = await runCli(["games", "delete", tenant.games.farm.id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ gameId: tenant.games.farm.id, deleted: true });
    expect((await ctx.client.listGames({ companyId: tenant.companyId })).games.map((g) => g.id)).toEqual([tenant.games.galaxy.id]);
    expect((await runCli(["games", "delete", tenant.games.farm.id])).code).toBe(1);
  });

  it("prints usage for help and refuses unknown commands", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: pnpm admin");
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("Usage: pnpm admin");
    const unknown = await runCli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: "usage" } });
  });
});
