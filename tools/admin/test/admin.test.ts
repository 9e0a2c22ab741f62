// The operators' admin command end to end against the content and players services started
// in-process, with its results checked through content's RPCs and in the services' schemas and
// event streams. The command runs in this process (its `main`); the tests of what an operator
// sees of the process itself (exit code, stdout, stderr, stdin) run it as a child process.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBus, streamNameFor, type EventEnvelope, type NatsConnection } from "@support/bus";
import { connectToAppError } from "@support/rpc";
import { freePort } from "@support/testkit";
import { startServices, type AdminTestContext } from "./context.ts";

// The demo tenant without the tickets service's sections (rules, sla, triage, outbreaks): this
// context starts content and players only; those sections are applied end to end in
// services/tickets/test/tenant-automation.test.ts, where the tickets service runs.
const { rules: _rules, sla: _sla, triage: _triage, outbreaks: _outbreaks, ...demoTenant } = JSON.parse(
  readFileSync(new URL("../../../scripts/demo-tenant.json", import.meta.url), "utf8"),
);

let ctx: AdminTestContext;
let workDir: string;
let nc: NatsConnection;

beforeAll(async () => {
  ctx = await startServices();
  nc = await connectBus(ctx.infra.natsUrl, "admin-test-reader");
  workDir = mkdtempSync(join(tmpdir(), "admin-"));
});

afterAll(async () => {
  await nc?.drain();
  await ctx?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const runCli = (args: string[], stdin?: string) => ctx.runCli(args, { stdin });
const runCliProcess = (args: string[], stdin?: string) => ctx.runCliProcess(args, { stdin });

async function failureOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    return connectToAppError(error);
  }
  throw new Error("expected the call to fail");
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
    Number((await ctx.contentDb.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return {
    companies: await count("companies"),
    games: await count("games"),
    apiKeys: await count("api_keys"),
    announcements: await count("announcements"),
  };
}

/**
 * players.players rows (of one company, or all), oldest first (rows of one transaction share
 * created_at: then by player id, email players last).
 */
async function playerRows(companyId?: string) {
  let query = ctx.playersDb
    .selectFrom("players")
    .select(["company_id", "game_id", "external_id", "email", "blocked"])
    .orderBy("created_at")
    .orderBy("external_id")
    .orderBy("email")
    .orderBy("id");
  if (companyId !== undefined) query = query.where("company_id", "=", companyId);
  return query.execute();
}

/** The types of the players events of a company, as published to the players stream. */
async function playerEventTypes(companyId: string) {
  const jsm = await jetstreamManager(nc);
  const stream = streamNameFor(ctx.infra.natsPrefix, "players");
  const read = async () => {
    const { state } = await jsm.streams.info(stream);
    const types: string[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      const event = (await jsm.streams.getMessage(stream, { seq }))?.json<EventEnvelope>();
      if (event?.companyId === companyId) types.push(event.type);
    }
    return types;
  };
  // The relay publishes after commit: wait until what the outbox holds for the company is out.
  const pending = ctx.playersDb.selectFrom("outbox").select("id").where("company_id", "=", companyId);
  await expect.poll(() => pending.execute(), { timeout: 10_000 }).toEqual([]);
  return read();
}

/** The demo tenant under another company name: another file, so another company. */
const demoNamed = (name: string) => ({ ...demoTenant, company: { ...demoTenant.company, name } });

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

describe("pnpm admin apply", () => {
  it("creates a company from the demo tenant file and prints one JSON object of ids and secrets", async () => {
    const run = await runCliProcess(["apply", tenantFile(demoTenant)]);
    expect(run.code, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout);
    expect(output).toEqual({
      companyId: uuid,
      apiKeys: { demo: expect.stringMatching(/^psk_[A-Za-z0-9_-]{43}$/) },
      games: {
        galaxy: {
          id: uuid,
          environments: { "galaxy-production": { id: uuid, token: uuid }, "galaxy-staging": { id: uuid, token: uuid } },
          collectors: { contact: uuid },
        },
        farm: { id: uuid, environments: { "farm-production": { id: uuid, token: uuid } }, collectors: {} },
      },
      users: { dana: uuid, alice: uuid, bob: uuid },
    });

    // The secret works through the service, by its hash.
    const auth = await ctx.content.authenticateApiKey({ keyHash: sha256(output.apiKeys.demo) });
    expect(auth.companyId).toBe(output.companyId);

    const companyId = output.companyId as string;
    const company = (await ctx.content.getCompany({ companyId })).company;
    expect(company).toMatchObject({ name: "Demo Games Studio", primaryLanguage: "en", allowImmediateDeletion: true, autoCloseWaitingAfterHours: 168 });
    const games = (await ctx.content.listGames({ companyId })).games;
    expect(games.map((g) => g.slug)).toEqual(["galaxy-raiders", "pixel-farm"]);
    const galaxy = await ctx.content.getGame({ companyId, gameId: output.games.galaxy.id });
    expect(galaxy.environments.map((e) => [e.name, e.token])).toEqual([
      ["production", output.games.galaxy.environments["galaxy-production"].token],
      ["staging", output.games.galaxy.environments["galaxy-staging"].token],
    ]);
    // In the file's order.
    expect(galaxy.resources.map((r) => r.key)).toEqual(["faq", "billing"]);
    expect(games.find((g) => g.slug === "pixel-farm")?.blockUnverifiedPlayers).toBe(true);

    // An environment announcement is an override, resolved for that environment only and not listed.
    const production = await ctx.content.resolveAnnouncement({ companyId, environmentId: output.games.galaxy.environments["galaxy-production"].id });
    expect(production).toMatchObject({ source: "environment", announcement: { shortContent: { en: "Season 3 is live!" } } });
    const staging = await ctx.content.resolveAnnouncement({ companyId, environmentId: output.games.galaxy.environments["galaxy-staging"].id });
    expect(staging.source).toBe("none");
    expect((await ctx.content.listAnnouncements({ companyId })).announcements).toEqual([]);

    expect((await ctx.content.listTags({ companyId })).tags).toHaveLength(5);
    const fields = (await ctx.content.listFields({ companyId })).fields;
    expect(fields.find((f) => f.key === "ship_class")).toMatchObject({ type: "dropdown", options: ["fighter", "freighter", "explorer"] });
    const access = await ctx.content.checkUserAccess({ companyId, userId: output.users.alice, gameId: output.games.farm.id });
    expect(access.hasAccess).toBe(true);
    // Alice's skill names a skill tag the file defines after its users.
    const skills = await ctx.contentDb.selectFrom("users").select(["id", "skills"]).where("company_id", "=", companyId).orderBy("email").execute();
    expect(skills).toEqual([
      { id: output.users.dana, skills: [] },
      { id: output.users.alice, skills: ["billing"] },
      { id: output.users.bob, skills: [] },
    ]);

    // Its events went to the outbox, and the running service's relay published them.
    const pending = ctx.contentDb.selectFrom("outbox").select("type").where("company_id", "=", companyId);
    await expect.poll(() => pending.execute(), { timeout: 10_000 }).toEqual([]);
  });

  it("reads the file from stdin with - and converges when the same file is applied again", async () => {
    const file = { company: { name: "Stdin Studio", primaryLanguage: "de", autoCloseWaitingAfterHours: 1.5 }, apiKeys: [{ name: "a" }, { name: "b" }] };
    const first = await runCliProcess(["apply", "-"], JSON.stringify(file));
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(Object.keys(a.apiKeys)).toEqual(["a", "b"]);
    expect(a).toEqual({ companyId: uuid, apiKeys: { a: expect.stringMatching(/^psk_/), b: expect.stringMatching(/^psk_/) }, games: {}, users: {} });
    const company = (await ctx.content.getCompany({ companyId: a.companyId })).company;
    expect(company).toMatchObject({ primaryLanguage: "de", autoCloseWaitingAfterHours: 1.5, allowImmediateDeletion: false });

    // The same file (keys in another order, other whitespace): nothing new, the same ids, no secrets.
    const before = await counts();
    const reordered = { apiKeys: file.apiKeys, company: { autoCloseWaitingAfterHours: 1.5, primaryLanguage: "de", name: "Stdin Studio" } };
    const again = await runCli(["apply", "-"], JSON.stringify(reordered, null, 4));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...a, apiKeys: { a: null, b: null }, alreadyApplied: true });
    expect(again.stderr).toContain("applied before");
    expect(await counts()).toEqual(before);
    // The secrets of the first run still work.
    expect((await ctx.content.authenticateApiKey({ keyHash: sha256(a.apiKeys.a) })).companyId).toBe(a.companyId);

    // A file that differs in anything is another tenant.
    const other = await runCli(["apply", "-"], JSON.stringify({ ...file, company: { ...file.company, name: "Stdin Studio 2" } }));
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout).companyId).not.toBe(a.companyId);
  });

  it("applies one file once when two runs race", async () => {
    const file = tenantFile({ company: { name: "Racing Studio" }, apiKeys: [{ name: "k" }] });
    const runs = await Promise.all([runCli(["apply", file]), runCli(["apply", file])]);
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    const [x, y] = runs.map((run) => JSON.parse(run.stdout));
    expect(x.companyId).toBe(y.companyId);
    expect([x.alreadyApplied, y.alreadyApplied].sort()).toEqual([true, undefined]);
  });

  it("names the bad path of an invalid file and changes nothing", async () => {
    const before = await counts();
    const bad = structuredClone(demoTenant);
    bad.games[0].languages = ["en", "klingon"];
    bad.users[1].games.push("unknown-game");
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

    const unskilled = structuredClone(demoTenant);
    unskilled.users[1].skills = ["billing", "bug"];
    const skillRun = await runCli(["apply", tenantFile(unskilled)]);
    expect(skillRun.code).toBe(2);
    expect(skillRun.stderr).toContain('users/1/skills/1: must be a skill tag of the company; the tag "bug" is not marked isSkill');
    expect(await counts()).toEqual(before);
  });

  it("blocks the file's blockedPlayers, by player id or email, for the right game", async () => {
    // Another company name: the demo file with blockedPlayers is another file, and a file of the
    // name of a company a file created is refused without --company.
    const file = {
      ...demoNamed("Blocking Studio"),
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

  it("reports a players failure after content committed, with the secrets and the command that finishes the job", async () => {
    const path = tenantFile({ ...demoTenant, company: { name: "Half Studio" }, blockedPlayers: [{ game: "galaxy", playerId: "half-1" }] });
    const before = (await playerRows()).length;
    const closedPort = await freePort();
    const failed = await ctx.runCli(["apply", path], {
      env: { PLAYERS_URL: `http://127.0.0.1:${closedPort}`, PLAYERS_ATTEMPTS: "3", RETRY_DELAY_MS: "10" },
    });
    expect(failed.code).toBe(1);
    const { error } = JSON.parse(failed.stdout);
    expect(error).toMatchObject({
      companyId: uuid,
      rerun: `pnpm admin apply ${path}`,
      applied: { companyId: error.companyId, apiKeys: { demo: expect.stringMatching(/^psk_/) } },
    });
    expect(error.message).toContain(`content's part of the tenant file was applied (company ${error.companyId})`);
    expect(failed.stderr.match(/blocking the file's players failed; retrying/g)).toHaveLength(2);
    expect((await ctx.content.getCompany({ companyId: error.companyId })).company?.name).toBe("Half Studio");
    expect((await playerRows()).length).toBe(before);

    // The rerun creates nothing in content and blocks the players.
    const companies = (await counts()).companies;
    const rerun = await runCli(["apply", path]);
    expect(rerun.code, rerun.stderr).toBe(0);
    const output = JSON.parse(rerun.stdout);
    expect(output).toMatchObject({ companyId: error.companyId, apiKeys: { demo: null }, games: error.applied.games, alreadyApplied: true });
    expect((await counts()).companies).toBe(companies);
    expect(await playerRows(error.companyId)).toEqual([
      { company_id: error.companyId, game_id: output.games.galaxy.id, external_id: "half-1", email: null, blocked: true },
    ]);
    // And again: still one blocked player.
    expect((await runCli(["apply", path])).code).toBe(0);
    expect(await playerRows(error.companyId)).toHaveLength(1);
  });

  it("names the path of a bad webhook entry before calling any service", async () => {
    const before = await counts();
    const bad = {
      ...structuredClone(demoTenant),
      webhooks: [
        { url: "https://hooks.example.com/a", events: ["ticket.created"], games: ["galaxy"] },
        { url: "https://hooks.example.com/a", events: ["ticket.exploded"], games: ["nowhere"] },
      ],
    };
    const badPath = tenantFile(bad);
    const run = await runCli(["apply", badPath]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: ${badPath}: the tenant file is invalid`);
    expect(run.stderr).toContain("webhooks/1/events/0: must be equal to one of the allowed values");
    expect(JSON.parse(run.stdout).error.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "webhooks/1/events/0" })]),
    );
    const refs = await runCli(["apply", tenantFile({ ...bad, webhooks: [bad.webhooks[0], { ...bad.webhooks[1], events: ["ticket.created"] }] })]);
    expect(refs.code).toBe(2);
    expect(refs.stderr).toContain("webhooks/1/url: duplicates the url of webhooks/0/url");
    expect(refs.stderr).toContain('webhooks/1/games/0: unknown game ref "nowhere"');
    expect(await counts()).toEqual(before);
  });

  it("reports a webhooks failure after content committed, with the secrets and the command to run again", async () => {
    const path = tenantFile({ ...demoTenant, company: { name: "Hook Studio" }, webhooks: [{ url: "https://hooks.example.com/a", events: ["ticket.created"] }] });
    const closedPort = await freePort();
    const failed = await ctx.runCli(["apply", path], { env: { WEBHOOKS_URL: `http://127.0.0.1:${closedPort}` } });
    expect(failed.code).toBe(1);
    const { error } = JSON.parse(failed.stdout);
    expect(error).toMatchObject({
      code: "unavailable",
      companyId: uuid,
      rerun: `pnpm admin apply ${path}`,
      applied: { companyId: error.companyId, apiKeys: { demo: expect.stringMatching(/^psk_/) } },
    });
    expect(error.message).toContain(`content's and players' parts of the tenant file were applied (company ${error.companyId}), but applying its webhooks failed`);
    expect((await ctx.content.getCompany({ companyId: error.companyId })).company?.name).toBe("Hook Studio");
    // Without `webhooks` the same content is the same tenant: the webhooks are not in its digest.
    const { webhooks: _webhooks, ...withoutWebhooks } = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const again = await runCli(["apply", tenantFile(withoutWebhooks)]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ companyId: error.companyId, alreadyApplied: true });
    expect(JSON.parse(again.stdout).webhooks).toBeUndefined();
  });

  it("sets the company's mail sender, and an edit of it on the company the file created", async () => {
    const file = { company: { name: "Sender Studio", email: { senderName: "Sender Support", senderAddress: "help@sender.example" } } };
    const first = await runCli(["apply", tenantFile(file)]);
    expect(first.code, first.stderr).toBe(0);
    const { companyId } = JSON.parse(first.stdout);
    expect((await ctx.content.getCompany({ companyId })).company).toMatchObject({ emailSenderName: "Sender Support", emailSenderAddress: "help@sender.example" });

    const edited = await runCli(["apply", tenantFile({ company: { ...file.company, email: { senderName: "Sender Help" } } })]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ companyId, alreadyApplied: true });
    const { company } = await ctx.content.getCompany({ companyId });
    expect([company?.emailSenderName, company?.emailSenderAddress]).toEqual(["Sender Help", undefined]);

    const bad = await runCli(["apply", tenantFile({ company: { ...file.company, email: { senderAddress: "Sender <help@sender.example>" } } })]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("company/email/senderAddress: must be a plain email address");
    expect((await ctx.content.getCompany({ companyId })).company?.emailSenderName).toBe("Sender Help");
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
    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoNamed("Players Studio"))])).stdout);
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

    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoNamed("Deleted Game Studio"))])).stdout);
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

describe("pnpm admin users", () => {
  it("sets a user's password from stdin, after the password rule, never echoing it", async () => {
    const email = `lead-${Date.now()}@studio.example`;
    const file = { company: { name: "Passwords" }, users: [{ ref: "lead", name: "Lena Lead", email, role: "admin", displayName: "Lena" }] };
    const tenant = JSON.parse((await runCli(["apply", "-"], JSON.stringify(file))).stdout);
    const userId = tenant.users.lead;
    const user = await ctx.contentDb.selectFrom("users").select(["role", "display_name"]).where("id", "=", userId).executeTakeFirstOrThrow();
    expect(user).toEqual({ role: "admin", display_name: "Lena" });

    const weak = await runCli(["users", "set-password", "--email", email], "password1234\n");
    expect(weak.code).toBe(2);
    expect(JSON.parse(weak.stdout).error).toMatchObject({ code: "invalid_argument", issues: [{ path: "password" }] });
    const set = await runCli(["users", "set-password", "--email", email.toUpperCase()], "a long and quiet harbour at dawn\n");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ userId, companyId: tenant.companyId, passwordSet: true });
    expect(set.stdout + set.stderr).not.toContain("harbour");
    expect(await ctx.contentDb.selectFrom("user_credentials").select("user_id").where("user_id", "=", userId).execute()).toHaveLength(1);

    expect((await runCli(["users", "set-password", "--email", email], "")).code).toBe(2);
    expect((await runCli(["users", "set-password", "--email", "nobody@studio.example"], "a long and quiet harbour at dawn")).code).toBe(1);
    expect((await runCli(["users", "set-password"], "x")).code).toBe(2);
  });
});

describe("pnpm admin users invite, reset-password and deactivate", () => {
  it("invites a user with a single-use link, makes a reset link, and deactivates the user", async () => {
    const tenant = JSON.parse((await runCli(["apply", "-"], JSON.stringify({ company: { name: "Invites" }, games: [{ ref: "g", name: "G", slug: "g", languages: ["en"] }] }))).stdout);
    const email = `new-${Date.now()}@studio.example`;
    const invited = await runCli(["users", "invite", "--company", tenant.companyId, "--email", email, "--name", "Nora New", "--role", "admin", "--display-name", "Nora", "--games", tenant.games.g.id]);
    expect(invited.code, invited.stderr).toBe(0);
    const output = JSON.parse(invited.stdout);
    // Without SMTP_URL the link is printed only: the operator passes it on.
    expect(output).toEqual({ userId: uuid, link: expect.stringMatching(/\/app\/welcome#token=[\w-]{43}$/), expiresAt: expect.any(String), mailed: false });
    const user = await ctx.contentDb.selectFrom("users").select(["role", "display_name", "active"]).where("id", "=", output.userId).executeTakeFirstOrThrow();
    expect(user).toEqual({ role: "admin", display_name: "Nora", active: true });
    expect(await ctx.contentDb.selectFrom("user_links").select("purpose").where("user_id", "=", output.userId).execute()).toEqual([{ purpose: "invitation" }]);

    await runCli(["users", "set-password", "--email", email], "the northern lights in march\n");
    expect((await runCli(["users", "invite", "--company", tenant.companyId, "--email", email, "--name", "Nora New"])).code).toBe(1);
    const reset = await runCli(["users", "reset-password", "--email", email]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout).link).toMatch(/\/app\/reset-password#token=/);

    const deactivated = await runCli(["users", "deactivate", "--company", tenant.companyId, "--email", email]);
    expect(deactivated.code, deactivated.stderr).toBe(0);
    expect(JSON.parse(deactivated.stdout)).toEqual({ userId: output.userId, deactivated: true, endedSessions: 0 });
    expect((await ctx.contentDb.selectFrom("users").select("active").where("id", "=", output.userId).executeTakeFirstOrThrow()).active).toBe(false);
    expect((await runCli(["users", "invite", "--company", tenant.companyId, "--email", email])).code).toBe(2);
  });
});

describe("pnpm admin api-keys and games", () => {
  it("creates and revokes an API key", async () => {
    const tenant = JSON.parse((await runCli(["apply", "-"], JSON.stringify({ company: { name: "Keys" } }))).stdout);
    const created = await runCli(["api-keys", "create", "--company", tenant.companyId, "--name", "ci"]);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toEqual({ apiKeyId: uuid, name: "ci", secret: expect.stringMatching(/^psk_/) });
    expect((await ctx.content.authenticateApiKey({ keyHash: sha256(key.secret) })).apiKeyId).toBe(key.apiKeyId);

    const revoked = await runCli(["api-keys", "revoke", key.apiKeyId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ apiKeyId: key.apiKeyId, revoked: true });
    expect((await failureOf(ctx.content.authenticateApiKey({ keyHash: sha256(key.secret) }))).code).toBe("not_found");

    const unknown = await runCli(["api-keys", "revoke", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("api key not found");
    const noCompany = await runCli(["api-keys", "create", "--company", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11", "--name", "x"]);
    expect(noCompany.code).toBe(1);
  });

  it("soft-deletes a game", async () => {
    const tenant = JSON.parse((await runCli(["apply", tenantFile(demoNamed("Games Studio"))])).stdout);
    const deleted = await runCli(["games", "delete", tenant.games.farm.id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ gameId: tenant.games.farm.id, deleted: true });
    expect((await ctx.content.listGames({ companyId: tenant.companyId })).games.map((g) => g.id)).toEqual([tenant.games.galaxy.id]);
    expect((await runCli(["games", "delete", tenant.games.farm.id])).code).toBe(1);
  });

  it("needs the services' admin token", async () => {
    const before = await counts();
    const wrong = await ctx.runCli(["apply", "-"], { stdin: JSON.stringify({ company: { name: "No token" } }), env: { ADMIN_TOKEN: "not-the-token" } });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: "unauthenticated" } });
    const none = await ctx.runCli(["games", "delete", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11"], {
      env: { ADMIN_TOKEN: "", ADMIN_TOKEN_FILE: join(workDir, "missing-token") },
    });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout).error.message).toContain("no admin token");
    // The token file, when ADMIN_TOKEN is unset.
    const tokenFile = join(workDir, "admin-token");
    writeFileSync(tokenFile, `${ctx.token}\n`);
    const fromFile = await ctx.runCli(["games", "delete", "6c9b1c58-3a0e-4b8e-9e7e-1b2f0f6e8d11"], { env: { ADMIN_TOKEN: "", ADMIN_TOKEN_FILE: tokenFile } });
    expect(JSON.parse(fromFile.stdout)).toEqual({ error: { code: "not_found", message: "game not found" } });
    expect(await counts()).toEqual(before);
  });

  it("prints usage for help and refuses unknown commands", async () => {
    const help = await runCliProcess(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: pnpm admin");
    const none = await runCliProcess([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("Usage: pnpm admin");
    const unknown = await runCliProcess(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: "usage" } });
  });
});

describe("pnpm admin users reset-2fa", () => {
  it("turns a user's two-factor off: secret, recovery codes and challenges deleted, sessions ended, the audit log written", async () => {
    const email = `phone-lost-${Date.now()}@studio.example`;
    const file = { company: { name: "Two Factor", requireTwoFactor: true }, users: [{ ref: "tess", name: "Tess Factor", email }] };
    const tenant = JSON.parse((await runCli(["apply", "-"], JSON.stringify(file))).stdout);
    const userId: string = tenant.users.tess;
    const db = ctx.contentDb;
    expect((await db.selectFrom("companies").select("require_two_factor").where("id", "=", tenant.companyId).executeTakeFirstOrThrow()).require_two_factor).toBe(true);
    // Two-factor as an enrolment leaves it (the sealed value's content does not matter here), and a live session.
    await db.insertInto("user_two_factor").values({ user_id: userId, company_id: tenant.companyId, secret_sealed: "v1.c2VhbGVk", enabled_at: new Date(), last_used_step: "1" }).execute();
    await db.insertInto("user_recovery_codes").values([{ user_id: userId, code_hash: "a".repeat(64), used_at: null }, { user_id: userId, code_hash: "b".repeat(64), used_at: null }]).execute();
    const hour = 3_600_000;
    const session = await db
      .insertInto("agent_sessions")
      .values({ token_hash: createHash("sha256").update(email).digest("hex"), csrf_token: "c", user_id: userId, company_id: tenant.companyId, idle_expires_at: new Date(Date.now() + hour), expires_at: new Date(Date.now() + hour), ended_at: null, ended_reason: null, client_address: null, user_agent: null })
      .returning("id")
      .executeTakeFirstOrThrow();

    const reset = await runCli(["users", "reset-2fa", "--email", email.toUpperCase()]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toEqual({ userId, companyId: tenant.companyId, twoFactorReset: true, hadTwoFactor: true, sessionsEnded: 1 });
    expect(await db.selectFrom("user_two_factor").select("user_id").where("user_id", "=", userId).execute()).toHaveLength(0);
    expect(await db.selectFrom("user_recovery_codes").select("user_id").where("user_id", "=", userId).execute()).toHaveLength(0);
    expect(await db.selectFrom("agent_sessions").select(["ended_at", "ended_reason"]).where("id", "=", session.id).executeTakeFirstOrThrow()).toMatchObject({ ended_reason: "two_factor_reset" });
    const audit = await db.selectFrom("audit_log").select(["action", "actor", "detail"]).where("user_id", "=", userId).execute();
    expect(audit).toEqual([{ action: "two_factor.reset", actor: { type: "operator", id: null }, detail: { hadTwoFactor: true, sessionsEnded: 1 } }]);

    // Again: nothing to reset, still fine; an unknown email is an error; --email is required.
    expect(JSON.parse((await runCli(["users", "reset-2fa", "--email", email])).stdout)).toMatchObject({ hadTwoFactor: false, sessionsEnded: 0 });
    expect((await runCli(["users", "reset-2fa", "--email", "nobody@studio.example"])).code).toBe(1);
    expect((await runCli(["users", "reset-2fa"])).code).toBe(2);
  });
});
