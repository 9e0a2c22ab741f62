// An edited tenant file applied to the company an earlier file created (ApplyTenant with a
// company id), against real Postgres: what the file names is matched by identity and created or
// changed; what admins made in the settings is reported, not deleted; a change the file cannot
// make is a conflict that writes nothing; a dry run writes nothing; the same file twice writes
// nothing the second time; another company is refused and left alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompanySettingsService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import type { Client } from "@connectrpc/connect";
import { createCompany } from "../src/companies/company.service.ts";
import { applyTenant } from "../src/tenants/tenant.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";

let ctx: ContentTestContext;
let settings: Client<typeof CompanySettingsService>;

beforeAll(async () => {
  ctx = await startContent();
  settings = createServiceClient(CompanySettingsService, ctx.baseUrl);
});
afterAll(() => ctx?.stop());

let digestCounter = 0;
const digest = () => (digestCounter += 1).toString(16).padStart(64, "d");

/** A file of one studio: `name` keeps the companies of the tests apart. */
function studio(name: string) {
  return {
    company: { name, primaryLanguage: "en" },
    apiKeys: [{ name: "main" }],
    games: [
      {
        ref: "galaxy", name: "Galaxy Raiders", slug: `${name.toLowerCase().replaceAll(" ", "-")}-galaxy`, languages: ["en", "fr"],
        environments: [{ ref: "prod", name: "production", announcement: { shortContent: "Season 3!" } }],
        resources: [{ key: "faq", title: "FAQ", body: "Questions" }],
        collectors: [{ ref: "contact", title: "Contact us", contactForm: true, fields: [{ key: "topic", label: "Topic", type: "TEXT" as const }] }],
      },
    ],
    users: [{ ref: "ada", name: "Ada Admin", email: `ada@${name.toLowerCase().replaceAll(" ", "")}.example`, role: "admin" as const, games: ["galaxy"] }],
    tags: [{ name: "bug", game: null, description: "Broken" }],
    fields: [{ key: "ship", name: "Ship", type: "dropdown", game: "galaxy", options: ["fighter"] }],
  };
}

/** Everything content holds of a company, to prove that a call wrote nothing. */
async function snapshot(companyId: string) {
  const rows = (table: "api_keys" | "games" | "game_environments" | "game_resources" | "collectors" | "tags" | "field_definitions" | "users" | "announcements" | "audit_log" | "tenant_applications") =>
    ctx.db.selectFrom(table).selectAll().where("company_id", "=", companyId).execute().then((list) => list.map((row) => JSON.stringify(row)).sort());
  return {
    company: await ctx.db.selectFrom("companies").selectAll().where("id", "=", companyId).executeTakeFirst(),
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

describe("converging a company on an edited tenant file", () => {
  it("changes what the file names, creates what is new, and reports what admins made without deleting it", async () => {
    const file = studio("Edit Studio");
    const first = await applyTenant(ctx.db, digest(), file);
    const companyId = first.companyId;
    const adminId = first.users[0]!.userId;
    const gameId = first.games[0]!.gameId;
    const change = { companyId, actingUserId: adminId };

    // An admin works in the settings: a key, a tag, a field, an environment, and a tag's description.
    await settings.createCompanyApiKey({ change, name: "dashboard-key" });
    await settings.createCompanyTag({ change, name: "vip", isSkill: true });
    await settings.createCompanyField({ change, key: "platform", name: "Platform", type: "text" });
    await settings.createCompanyEnvironment({ change, gameId, name: "staging" });
    const bug = (await settings.listCompanyTagsAndFields({ change })).tags.find((tag) => tag.name === "bug")!;
    await settings.updateCompanyTag({ change, tagId: bug.id, description: "Edited in the settings", isAiTag: false, isSkill: false });

    // The operator edits the file: a game renamed, a new key, the FAQ reworded, a new tag, the field's options.
    const edited = structuredClone(file);
    edited.games[0]!.name = "Galaxy Raiders II";
    edited.games[0]!.resources[0]!.body = "Answers";
    edited.apiKeys.push({ name: "ci" });
    edited.tags.push({ name: "crash", game: null, description: "Crashes" });
    edited.fields[0]!.options = ["fighter", "freighter"];
    const editedDigest = digest();
    const converged = await applyTenant(ctx.db, editedDigest, edited, { companyId });

    expect(converged.companyId).toBe(companyId);
    // Secrets only for the key this run created; the same ids for what existed.
    expect(converged.apiKeys).toEqual([
      { name: "main", apiKeyId: first.apiKeys[0]!.apiKeyId },
      { name: "ci", apiKeyId: expect.any(String), secret: expect.stringMatching(/^psk_/) },
    ]);
    expect(converged.games[0]).toMatchObject({ ref: "galaxy", gameId, environments: [{ ref: "prod", environmentId: first.games[0]!.environments[0]!.environmentId }] });
    expect(converged.users).toEqual(first.users);

    const report = converged.report!;
    expect(report.conflicts).toEqual([]);
    expect(names(report.created)).toEqual(["apiKey ci", "tag crash"]);
    expect(report.changed.map(({ kind, name, attributes }) => ({ kind, name, attributes })).sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
      { kind: "field", name: "ship (edit-studio-galaxy)", attributes: ["options"] },
      { kind: "game", name: "edit-studio-galaxy", attributes: ["name"] },
      { kind: "resource", name: "edit-studio-galaxy/faq", attributes: ["body"] },
      // The file names the tag's description: the file's is written back over the admin's.
      { kind: "tag", name: "bug", attributes: ["description"] },
    ]);
    expect(names(report.notInFile)).toEqual(["apiKey dashboard-key", "environment edit-studio-galaxy/staging", "field platform", "tag vip"]);
    expect(names(report.unchanged)).toContain("user ada@editstudio.example");

    // In the company: changed, created, and the admin's things still there.
    const game = await ctx.client.getGame({ companyId, gameId });
    expect(game.game?.name).toBe("Galaxy Raiders II");
    expect(game.environments.map((environment) => environment.name).sort()).toEqual(["production", "staging"]);
    const { tags, fields } = await settings.listCompanyTagsAndFields({ change });
    expect(tags.map((tag) => [tag.name, tag.description]).sort()).toEqual([["bug", "Broken"], ["crash", "Crashes"], ["vip", undefined]]);
    expect(fields.find((field) => field.key === "ship")?.options).toEqual(["fighter", "freighter"]);
    expect(fields.map((field) => field.key).sort()).toEqual(["platform", "ship"]);
    expect((await settings.listCompanyApiKeys({ change })).apiKeys.filter((key) => !key.revokedAt).map((key) => key.name).sort()).toEqual(["ci", "dashboard-key", "main"]);

    // One tenant.applied entry, by the operator, naming what it created and changed; never a secret.
    const entries = await ctx.db.selectFrom("audit_log").select(["actor", "after"]).where("company_id", "=", companyId).where("action", "=", "tenant.applied").orderBy("created_at").execute();
    expect(entries).toHaveLength(2);
    const last = entries[1]!;
    expect(last.actor).toEqual({ type: "operator", id: null });
    expect(last.after).toMatchObject({
      company: "Edit Studio",
      created: expect.arrayContaining([{ kind: "apiKey", name: "ci" }, { kind: "tag", name: "crash" }]),
      changed: expect.arrayContaining([{ kind: "game", name: "edit-studio-galaxy", attributes: ["name"] }]),
    });
    expect(JSON.stringify(last.after)).not.toContain("psk_");
    // Each change is also recorded on its object, by the operator.
    const gameUpdates = await ctx.db.selectFrom("audit_log").select(["actor"]).where("company_id", "=", companyId).where("action", "=", "game.updated").execute();
    expect(gameUpdates).toEqual([{ actor: { type: "operator", id: null } }]);

    // The same edited file again: nothing changes, nothing is written, everything unchanged.
    const before = await snapshot(companyId);
    const again = await applyTenant(ctx.db, editedDigest, edited, { companyId });
    expect(again.report!.created).toEqual([]);
    expect(again.report!.changed).toEqual([]);
    expect(again.apiKeys.every((key) => key.secret === undefined)).toBe(true);
    expect(await snapshot(companyId)).toEqual(before);
  });

  it("applies a game's branding from the file, and changes only the attributes an edited file names", async () => {
    const file = studio("Brand Studio");
    const branded = { ...file, games: [{ ...file.games[0]!, branding: { accentColor: "#0F766E", colorScheme: "dark" as const } }] };
    const first = await applyTenant(ctx.db, digest(), branded);
    const { companyId } = first;
    const gameId = first.games[0]!.gameId;
    const brandingOf = async () => (await ctx.client.getGame({ companyId, gameId })).branding;
    expect(await brandingOf()).toMatchObject({ accentColor: "#0f766e", accentTextColor: "#ffffff", colorScheme: "dark" });

    // The edited file names only the scheme: the accent colour stays.
    const edited = { ...file, games: [{ ...file.games[0]!, branding: { colorScheme: "system" as const } }] };
    const converged = await applyTenant(ctx.db, digest(), edited, { companyId });
    expect(converged.report!.changed.map(({ kind, attributes }) => ({ kind, attributes }))).toEqual([{ kind: "game", attributes: ["branding"] }]);
    expect(await brandingOf()).toMatchObject({ accentColor: "#0f766e", colorScheme: "system" });
    const changes = await ctx.db.selectFrom("audit_log").select(["actor"]).where("company_id", "=", companyId).where("action", "=", "game.branding_changed").execute();
    expect(changes).toEqual([{ actor: { type: "operator", id: null } }, { actor: { type: "operator", id: null } }]);

    // The same again changes nothing; a file without branding leaves it alone.
    const again = await applyTenant(ctx.db, digest(), { ...edited, apiKeys: [...edited.apiKeys, { name: "again" }] }, { companyId });
    expect(again.report!.changed).toEqual([]);
    await applyTenant(ctx.db, digest(), { ...file, apiKeys: [...file.apiKeys, { name: "plain" }] }, { companyId });
    expect(await brandingOf()).toMatchObject({ accentColor: "#0f766e", colorScheme: "system" });
  });

  it("refuses a change the file cannot make, and writes nothing of the rest", async () => {
    const file = studio("Conflict Studio");
    const first = await applyTenant(ctx.db, digest(), file);
    const companyId = first.companyId;
    const before = await snapshot(companyId);

    const edited = structuredClone(file);
    edited.fields[0]!.type = "text";
    delete (edited.fields[0] as { options?: string[] }).options;
    edited.games[0]!.name = "Renamed";
    edited.apiKeys.push({ name: "new-key" });
    const refused = await applyTenant(ctx.db, digest(), edited, { companyId });

    expect(refused.report!.conflicts).toEqual([
      expect.objectContaining({ kind: "field", name: "ship (conflict-studio-galaxy)", path: "fields/0", attributes: ["type"], message: expect.stringContaining("type cannot change") }),
    ]);
    // What would have been created has no id (it does not exist), and no secret is given.
    expect(refused.apiKeys).toEqual([]);
    expect(refused.report!.created.every((entry) => entry.id === "")).toBe(true);
    expect(await snapshot(companyId)).toEqual(before);
  });

  it("in a dry run, reports the same and writes nothing", async () => {
    const file = studio("Dry Studio");
    const first = await applyTenant(ctx.db, digest(), file);
    const companyId = first.companyId;
    const before = await snapshot(companyId);

    const edited = structuredClone(file);
    edited.games[0]!.languages = ["en"];
    edited.users.push({ ref: "bo", name: "Bo", email: "bo@drystudio.example", role: "admin", games: [] });
    const planned = await applyTenant(ctx.db, digest(), edited, { companyId, dryRun: true });
    expect(names(planned.report!.created)).toEqual(["user bo@drystudio.example"]);
    expect(planned.report!.changed).toEqual([expect.objectContaining({ kind: "game", attributes: ["languages"] })]);
    expect(planned.users).toEqual([]);
    expect(await snapshot(companyId)).toEqual(before);

    // A dry run of a new company creates nothing either.
    const companies = await ctx.db.selectFrom("companies").select("id").execute();
    const newOne = await applyTenant(ctx.db, digest(), studio("Never Studio"), { dryRun: true });
    expect(newOne.companyId).toBe("");
    expect(names(newOne.report!.created)).toContain("company Never Studio");
    expect(await ctx.db.selectFrom("companies").select("id").execute()).toEqual(companies);
  });

  it("refuses another company, one no file created, and a second company of a file's name", async () => {
    const a = await applyTenant(ctx.db, digest(), studio("Alpha Studio"));
    const b = await applyTenant(ctx.db, digest(), studio("Beta Studio"));
    const beforeB = await snapshot(b.companyId);

    // File A aimed at company B: its name is not B's, so nothing of B changes.
    const wrong = await applyTenant(ctx.db, digest(), { ...studio("Alpha Studio"), apiKeys: [{ name: "main" }, { name: "extra" }] }, { companyId: b.companyId });
    expect(wrong.report!.conflicts).toEqual([expect.objectContaining({ kind: "company", attributes: ["name"] })]);
    expect(await snapshot(b.companyId)).toEqual(beforeB);

    // The very file that created A, aimed at B: refused by its digest as well.
    const fileDigest = digest();
    const c = await applyTenant(ctx.db, fileDigest, studio("Gamma Studio"));
    const refused = await failureOf(applyTenant(ctx.db, fileDigest, studio("Gamma Studio"), { companyId: a.companyId }));
    expect(refused).toMatchObject({ code: "failed_precondition", message: expect.stringContaining(`this file created company ${c.companyId}`) });

    // A company no tenant file created (made some other way) is not a file's to converge.
    const orphan = await createCompany(ctx.db, { name: "Hand Made" });
    expect(await failureOf(applyTenant(ctx.db, digest(), { company: { name: "Hand Made" } }, { companyId: orphan.id }))).toMatchObject({ code: "failed_precondition" });
    expect(await failureOf(applyTenant(ctx.db, digest(), { company: { name: "X" } }, { companyId: "00000000-0000-4000-8000-000000000000" }))).toMatchObject({ code: "not_found" });

    // Without a company, an edited file of a name a file already made is refused, not a second company.
    const count = async () => (await ctx.db.selectFrom("companies").select("id").execute()).length;
    const companies = await count();
    const duplicate = await failureOf(applyTenant(ctx.db, digest(), { ...studio("Alpha Studio"), apiKeys: [] }, { uniqueCompanyName: true }));
    expect(duplicate).toMatchObject({ code: "failed_precondition", message: expect.stringContaining(`--company ${a.companyId}`) });
    expect(await count()).toBe(companies);
  });
});
