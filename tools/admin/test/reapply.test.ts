// `pnpm admin apply --company <id> FILE` end to end: a tenant file applied, the company edited
// in "the dashboard" (content's settings RPCs, as the gateway calls them for a signed-in admin),
// then the edited file applied to the company it created. Run in this process (the command's
// `main`) against the content and players services started in-process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServices, type AdminTestContext } from "./context.ts";

// The demo tenant without the tickets service's sections (rules, sla, triage, outbreaks): this
// context starts content and players only; those sections are applied end to end in
// services/tickets/test/tenant-automation.test.ts, where the tickets service runs.
const { rules: _rules, sla: _sla, triage: _triage, outbreaks: _outbreaks, ...demoTenant } = JSON.parse(
  readFileSync(new URL("../../../scripts/demo-tenant.json", import.meta.url), "utf8"),
);

let ctx: AdminTestContext;
let workDir: string;

beforeAll(async () => {
  ctx = await startServices();
  workDir = mkdtempSync(join(tmpdir(), "admin-reapply-"));
});

afterAll(async () => {
  await ctx?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

let fileCounter = 0;
function tenantFile(content: unknown): string {
  fileCounter += 1;
  const path = join(workDir, `tenant-${fileCounter}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

/** The demo tenant under another company name (each test its own company). */
function demoNamed(name: string) {
  const file = structuredClone(demoTenant);
  file.company.name = name;
  return file;
}

/** What content holds of a company, to prove that a run wrote nothing. */
async function snapshot(companyId: string) {
  const rows = (table: "api_keys" | "games" | "game_environments" | "game_resources" | "collectors" | "tags" | "field_definitions" | "users" | "announcements" | "audit_log" | "tenant_applications") =>
    ctx.contentDb.selectFrom(table).selectAll().where("company_id", "=", companyId).execute().then((list) => list.map((row) => JSON.stringify(row)).sort());
  return {
    companies: (await ctx.contentDb.selectFrom("companies").select("id").execute()).length,
    apiKeys: await rows("api_keys"),
    games: await rows("games"),
    environments: await rows("game_environments"),
    resources: await rows("game_resources"),
    collectors: await rows("collectors"),
    tags: await rows("tags"),
    fields: await rows("field_definitions"),
    users: await rows("users"),
    announcements: await rows("announcements"),
    audit: await rows("audit_log"),
    applications: await rows("tenant_applications"),
  };
}

const names = (items: { kind: string; name: string }[] | undefined) => (items ?? []).map((entry) => `${entry.kind} ${entry.name}`).sort();

async function applied(args: string[]) {
  const run = await ctx.runCli(args);
  expect(run.code, run.stderr).toBe(0);
  return { output: JSON.parse(run.stdout), stderr: run.stderr };
}

describe("pnpm admin apply --company", () => {
  it("converges the company on the edited file: changes what it names, keeps and reports what admins made", async () => {
    const file = demoNamed("Reapply Studio");
    const { output: first } = await applied(["apply", tenantFile(file)]);
    const companyId: string = first.companyId;
    const change = { companyId, actingUserId: first.users.dana };

    // The dashboard: an admin adds a key, a tag and an environment, and rewords a tag.
    await ctx.settings.createCompanyApiKey({ change, name: "from-dashboard" });
    await ctx.settings.createCompanyTag({ change, name: "refund", isSkill: false });
    await ctx.settings.createCompanyEnvironment({ change, gameId: first.games.galaxy.id, name: "qa" });
    const bug = (await ctx.settings.listCompanyTagsAndFields({ change })).tags.find((tag) => tag.name === "bug")!;
    await ctx.settings.updateCompanyTag({ change, tagId: bug.id, description: "Reworded by an admin", isAiTag: false, isSkill: false });

    // The operator's edit: a renamed game, a new key, a new field, a player to block.
    const edited = structuredClone(file);
    edited.games[0].name = "Galaxy Raiders Remastered";
    edited.apiKeys.push({ name: "exports" });
    edited.fields.push({ key: "server", name: "Server", type: "text", game: null });
    edited.blockedPlayers = [{ game: "galaxy", playerId: "cheater-1" }];
    const editedPath = tenantFile(edited);

    // Dry run first: the report, and nothing written anywhere.
    const before = await snapshot(companyId);
    const plan = await applied(["plan", "--company", companyId, editedPath]);
    expect(plan.output).toMatchObject({ companyId, dryRun: true });
    expect(names(plan.output.report.created)).toEqual(["apiKey exports", "field server"]);
    expect(plan.stderr).toContain("dry run (nothing written)");
    expect(await snapshot(companyId)).toEqual(before);
    expect(await ctx.playersDb.selectFrom("players").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
    const dryRun = await applied(["apply", "--dry-run", "--company", companyId, editedPath]);
    expect(dryRun.output.report).toEqual(plan.output.report);

    const { output, stderr } = await applied(["apply", "--company", companyId, editedPath]);
    expect(output.companyId).toBe(companyId);
    // Only the new key's secret is printed; the ids of what existed are the first run's.
    expect(output.apiKeys).toEqual({ demo: null, exports: expect.stringMatching(/^psk_/) });
    expect(output.games.galaxy.id).toBe(first.games.galaxy.id);
    expect(output.games.galaxy.environments).toEqual(first.games.galaxy.environments);
    expect(output.users).toEqual(first.users);
    const { report } = output;
    expect(report.conflicts).toEqual([]);
    expect(names(report.created)).toEqual(["apiKey exports", "field server"]);
    expect(report.changed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "game", name: "galaxy-raiders", path: "games/0", attributes: ["name"] }),
        expect.objectContaining({ kind: "tag", name: "bug", attributes: ["description"] }),
      ]),
    );
    expect(report.changed, JSON.stringify(report.changed)).toHaveLength(2);
    expect(names(report.notInFile)).toEqual(["apiKey from-dashboard", "environment galaxy-raiders/qa", "tag refund"]);
    expect(stderr).toContain("~ game galaxy-raiders (games/0): name");
    expect(stderr).toContain("? apiKey from-dashboard: not in the file, kept");

    // The dashboard's things are still there; the file's changes are in.
    const { tags } = await ctx.settings.listCompanyTagsAndFields({ change });
    expect(tags.map((tag) => tag.name)).toEqual(expect.arrayContaining(["refund", "bug"]));
    const keys = (await ctx.settings.listCompanyApiKeys({ change })).apiKeys.map((key) => key.name).sort();
    expect(keys).toEqual(["demo", "exports", "from-dashboard"]);
    expect((await ctx.content.getGame({ companyId, gameId: first.games.galaxy.id })).game?.name).toBe("Galaxy Raiders Remastered");
    // The players part ran against the same company.
    const blocked = await ctx.playersDb.selectFrom("players").select(["external_id", "blocked"]).where("company_id", "=", companyId).execute();
    expect(blocked).toEqual([{ external_id: "cheater-1", blocked: true }]);

    // The tenant.applied entry names what the run created and changed, by the operator, with no secret.
    const audit = await ctx.contentDb.selectFrom("audit_log").select(["actor", "after"]).where("company_id", "=", companyId).where("action", "=", "tenant.applied").orderBy("created_at").execute();
    expect(audit).toHaveLength(2);
    expect(audit[1]!.actor).toEqual({ type: "operator", id: null });
    expect(audit[1]!.after).toMatchObject({ created: expect.arrayContaining([{ kind: "apiKey", name: "exports" }, { kind: "field", name: "server" }]) });
    expect(JSON.stringify(audit[1]!.after)).not.toContain(output.apiKeys.exports);

    // The same file again, with --company or without: a no-op.
    const settled = await snapshot(companyId);
    const again = await applied(["apply", "--company", companyId, editedPath]);
    expect(again.output.report.created).toEqual([]);
    expect(again.output.report.changed).toEqual([]);
    expect(again.output.apiKeys).toEqual({ demo: null, exports: null });
    const plain = await applied(["apply", editedPath]);
    expect(plain.output).toMatchObject({ companyId, alreadyApplied: true });
    expect(await snapshot(companyId)).toEqual(settled);
  });

  it("refuses a change the file cannot make (exit 2) and writes nothing", async () => {
    const file = demoNamed("Conflict Studio");
    const { output: first } = await applied(["apply", tenantFile(file)]);
    const before = await snapshot(first.companyId);

    const edited = structuredClone(file);
    const level = edited.fields.findIndex((field: { key: string }) => field.key === "level");
    edited.fields[level].type = "text";
    edited.games[1].name = "Pixel Farm 2";
    edited.apiKeys.push({ name: "never" });
    const run = await ctx.runCli(["apply", "--company", first.companyId, tenantFile(edited)]);
    expect(run.code).toBe(2);
    const { error } = JSON.parse(run.stdout);
    expect(error).toMatchObject({ code: "failed_precondition", companyId: first.companyId });
    expect(error.report.conflicts).toEqual([expect.objectContaining({ kind: "field", name: "level", path: `fields/${level}`, attributes: ["type"] })]);
    expect(run.stderr).toContain(`! field level (fields/${level}): type:`);
    expect(run.stdout).not.toContain("psk_");
    expect(await snapshot(first.companyId)).toEqual(before);
  });

  it("leaves another company alone, and refuses to make a second company of a file's name", async () => {
    const mine = await applied(["apply", tenantFile(demoNamed("Mine Studio"))]);
    const theirs = await applied(["apply", tenantFile(demoNamed("Theirs Studio"))]);
    const theirsBefore = await snapshot(theirs.output.companyId);

    // My edited file aimed at their company: its company name is not theirs, nothing of theirs changes.
    const edited = demoNamed("Mine Studio");
    edited.apiKeys.push({ name: "mine-only" });
    const editedPath = tenantFile(edited);
    const wrong = await ctx.runCli(["apply", "--company", theirs.output.companyId, editedPath]);
    expect(wrong.code).toBe(2);
    expect(JSON.parse(wrong.stdout).error.report.conflicts).toEqual([expect.objectContaining({ kind: "company", attributes: ["name"] })]);
    expect(await snapshot(theirs.output.companyId)).toEqual(theirsBefore);

    // The edited file without --company: refused, naming the company to converge; no second company.
    const mineBefore = await snapshot(mine.output.companyId);
    const duplicate = await ctx.runCli(["apply", editedPath]);
    expect(duplicate.code).toBe(2);
    expect(JSON.parse(duplicate.stdout).error).toMatchObject({ code: "failed_precondition", message: expect.stringContaining(`--company ${mine.output.companyId}`) });
    expect(await snapshot(mine.output.companyId)).toEqual(mineBefore);

    // A company id that is not a UUID is a usage error.
    const usage = await ctx.runCli(["apply", "--company", "mine", editedPath]);
    expect(usage.code).toBe(2);
  });
});
