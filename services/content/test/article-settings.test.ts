// Help articles and announcements in the settings, against real Postgres: an admin's article
// gets a key made of its title, a section and a position (last of the game's); a change that
// changes nothing writes nothing; reordering takes every article once; removing takes it off the
// player's reads; announcements of the three scopes keep the primary-language rule; every change
// is in the audit log with before and after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userActor, type ChangeOrigin } from "../src/audit/audit-log.ts";
import { changeArticle, createArticle, listArticles, removeArticle, reorderArticles } from "../src/games/article.service.ts";
import { getEnvironmentByToken } from "../src/games/game.service.ts";
import { clearAnnouncementInSettings, resolveAnnouncement, setAnnouncementInSettings } from "../src/announcements/announcement.service.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;
beforeAll(async () => {
  ctx = await startContent();
});
afterAll(async () => {
  await ctx?.stop();
});

const origin: ChangeOrigin = { actor: userActor("00000000-0000-4000-8000-000000000001"), clientAddress: "10.9.0.3" };

async function setup() {
  const company = await seedCompany(ctx.db);
  const { game, environments } = await seedGame(ctx.db, company.id, { environments: ["live"], resources: [{ key: "old", title: "Old article" }] });
  const { game: other } = await seedGame(ctx.db, company.id);
  return { companyId: company.id, primary: company.primaryLanguage, game, environment: environments[0]!, other };
}

const audit = (companyId: string) =>
  ctx.db.selectFrom("audit_log").select(["action", "target_type", "before", "after", "client_address"]).where("company_id", "=", companyId).orderBy("id").execute();

describe("help articles in the settings", () => {
  it("creates with a key of the title last in order, changes, reorders and removes", async () => {
    const { companyId, primary, game, environment, other } = await setup();
    const created = await createArticle(ctx.db, companyId, game.id, { title: { [primary]: "Refunds & payments" }, section: { [primary]: "Billing" }, body: { [primary]: "# Refunds" } }, origin);
    expect(created.key).toMatch(/^refunds-payments-[0-9a-f]{6}$/);
    expect(created.position).toBe(1);
    expect(created.section).toEqual({ [primary]: "Billing" });
    const changed = await changeArticle(ctx.db, companyId, created.id, { title: { [primary]: "Refunds" }, section: { [primary]: "Billing" }, body: { [primary]: "Ask us." } }, origin);
    expect(changed.title).toBe("Refunds");
    const again = await changeArticle(ctx.db, companyId, created.id, { title: { [primary]: "Refunds" }, section: { [primary]: "Billing" }, body: { [primary]: "Ask us." } }, origin);
    expect(again.updatedAt).toEqual(changed.updatedAt);
    await expect(changeArticle(ctx.db, companyId, created.id, { title: { [primary]: " " }, body: { xx: "?" } }, origin)).rejects.toMatchObject({
      code: "invalid_argument",
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: "/title" }), expect.objectContaining({ path: "/body/xx" })]) },
    });

    const old = (await listArticles(ctx.db, companyId, game.id)).find((article) => article.key === "old")!;
    await expect(reorderArticles(ctx.db, companyId, game.id, [created.id], origin)).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(reorderArticles(ctx.db, companyId, game.id, [created.id, created.id], origin)).rejects.toMatchObject({
      details: { issues: [expect.objectContaining({ path: "/articleIds/1" })] },
    });
    const reordered = await reorderArticles(ctx.db, companyId, game.id, [created.id, old.id], origin);
    expect(reordered.map((article) => article.key)).toEqual([created.key, "old"]);
    const seen = await getEnvironmentByToken(ctx.db, environment.token);
    expect(seen.resources.map((resource) => resource.key)).toEqual([created.key, "old"]);

    await expect(changeArticle(ctx.db, companyId, "00000000-0000-4000-8000-00000000beef", { title: "x" }, origin)).rejects.toMatchObject({ code: "not_found" });
    await expect(listArticles(ctx.db, companyId, other.id)).resolves.toEqual([]);
    await removeArticle(ctx.db, companyId, created.id, origin);
    expect((await getEnvironmentByToken(ctx.db, environment.token)).resources.map((resource) => resource.key)).toEqual(["old"]);

    const entries = (await audit(companyId)).filter((entry) => entry.action.startsWith("resource."));
    expect(entries.map((entry) => entry.action)).toEqual(["resource.created", "resource.updated", "resource.reordered", "resource.removed"]);
    expect(entries[1]).toMatchObject({ target_type: "resource", before: { title: { [primary]: "Refunds & payments" } }, after: { title: { [primary]: "Refunds" } }, client_address: "10.9.0.3" });
    expect(entries[2]).toMatchObject({ target_type: "game", before: { order: ["old", created.key] }, after: { order: [created.key, "old"] } });
    expect(entries[3]).toMatchObject({ after: null });
  });
});

describe("announcements in the settings", () => {
  it("sets and clears the three scopes with the primary-language rule, audited", async () => {
    const { companyId, primary, game, environment, other } = await setup();
    const other2 = primary === "de" ? "fr" : "de";
    await expect(setAnnouncementInSettings(ctx.db, companyId, {}, { shortContent: { [other2]: "Hallo" } }, origin)).rejects.toMatchObject({
      code: "invalid_argument",
      details: { issues: [expect.objectContaining({ path: `/shortContent/${primary}` })] },
    });
    await setAnnouncementInSettings(ctx.db, companyId, {}, { shortContent: { [primary]: "Shared" } }, origin);
    await setAnnouncementInSettings(ctx.db, companyId, { gameId: game.id }, { shortContent: { [primary]: "Game" }, longContent: { [primary]: "More" } }, origin);
    await setAnnouncementInSettings(ctx.db, companyId, { gameId: game.id, environmentId: environment.id }, { shortContent: { [primary]: "Env" } }, origin);
    expect((await resolveAnnouncement(ctx.db, companyId, environment.id)).source).toBe("environment");
    await expect(setAnnouncementInSettings(ctx.db, companyId, { gameId: other.id, environmentId: environment.id }, { shortContent: { [primary]: "x" } }, origin)).rejects.toMatchObject({ code: "not_found" });
    await clearAnnouncementInSettings(ctx.db, companyId, { gameId: game.id, environmentId: environment.id }, origin);
    await clearAnnouncementInSettings(ctx.db, companyId, { gameId: game.id, environmentId: environment.id }, origin);
    expect((await resolveAnnouncement(ctx.db, companyId, environment.id)).source).toBe("game");
    const entries = (await audit(companyId)).filter((entry) => entry.action.startsWith("announcement."));
    expect(entries.map((entry) => [entry.action, entry.target_type])).toEqual([
      ["announcement.set", "company"], ["announcement.set", "game"], ["announcement.set", "environment"], ["announcement.cleared", "environment"],
    ]);
    expect(entries[3]).toMatchObject({ before: { shortContent: { [primary]: "Env" } }, after: null });
  });
});
