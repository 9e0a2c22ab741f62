// The operators' admin command end to end: run as a child process against the test database,
// with its results checked through the running service.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("refuses blockedPlayers until the players service exists", async () => {
    const before = await counts();
    const run = await runCli(["apply", tenantFile({ ...demoTenant, blockedPlayers: [{ game: "galaxy", playerId: "p-1" }] })]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("blockedPlayers needs the players service, which is not available yet; remove the key");
    expect(await counts()).toEqual(before);
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
