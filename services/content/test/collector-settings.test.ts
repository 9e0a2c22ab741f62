// The collector settings' use cases against real Postgres: an admin's collector gets a ref made
// of its title and follows the tenant file's rules; a change that changes nothing writes
// nothing; retiring frees the ref, ends the contact-form role and hides the collector from the
// player's reads; the contact form moves between collectors of one game only; every change is in
// the audit log (the events are the contract test's, test/events.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userActor, type ChangeOrigin } from "../src/audit/audit-log.ts";
import { changeCollector, createCollector, getCollector, listCollectors, retireCollector, setContactForm } from "../src/collectors/collector.service.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;
beforeAll(async () => {
  ctx = await startContent();
});
afterAll(async () => {
  await ctx?.stop();
});

const origin: ChangeOrigin = { actor: userActor("00000000-0000-4000-8000-000000000001"), clientAddress: "10.9.0.2" };
const fields = [
  { key: "summary", label: "Summary", type: "TEXT", required: true },
  { key: "where", label: "Where", type: "DROPDOWN", options: ["Lobby", "Match"] },
];

async function setup() {
  const company = await seedCompany(ctx.db);
  const { game } = await seedGame(ctx.db, company.id);
  const { game: other } = await seedGame(ctx.db, company.id);
  return { companyId: company.id, game, other };
}

const audit = (companyId: string) =>
  ctx.db.selectFrom("audit_log").select(["action", "target_type", "before", "after", "client_address"]).where("company_id", "=", companyId).orderBy("id").execute();

describe("collectors in the settings", () => {
  it("creates with a ref of the title, changes, and writes nothing for a change that changes nothing", async () => {
    const { companyId, game } = await setup();
    const created = await createCollector(ctx.db, companyId, game.id, { ref: undefined, title: "Bug report!", fields }, origin);
    expect(created.ref).toMatch(/^bug-report-[0-9a-f]{6}$/);
    expect(created.fields[1]).toEqual({ key: "where", label: "Where", type: "DROPDOWN", options: ["Lobby", "Match"], required: false });
    const changed = await changeCollector(ctx.db, companyId, created.id, { title: "Report a bug", fields: [fields[1], fields[0]] }, origin);
    expect(changed.fields.map((field) => field.key)).toEqual(["where", "summary"]);
    const again = await changeCollector(ctx.db, companyId, created.id, { title: "Report a bug", fields: [fields[1], fields[0]] }, origin);
    expect(again.updatedAt).toEqual(changed.updatedAt);
    await expect(changeCollector(ctx.db, companyId, created.id, { title: "", fields: [{ key: "x", label: "X", type: "DROPDOWN" }] }, origin)).rejects.toMatchObject({
      code: "invalid_argument",
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: "/title" }), expect.objectContaining({ path: "/fields/0/options" })]) },
    });
    const entries = (await audit(companyId)).filter((entry) => entry.action.startsWith("collector."));
    expect(entries.map((entry) => [entry.action, entry.target_type, entry.client_address])).toEqual([
      ["collector.created", "collector", "10.9.0.2"],
      ["collector.updated", "collector", "10.9.0.2"],
    ]);
    expect(entries[1]!.before).toMatchObject({ title: "Bug report!" });
    expect(entries[1]!.after).toMatchObject({ title: "Report a bug" });
  });

  it("moves the contact form within a game, and retiring frees the ref and ends the role", async () => {
    const { companyId, game, other } = await setup();
    const contact = await createCollector(ctx.db, companyId, game.id, { ref: "contact", title: "Contact", contactForm: true, fields });
    const bug = await createCollector(ctx.db, companyId, game.id, { ref: "bug", title: "Bug", fields }, origin);
    const elsewhere = await createCollector(ctx.db, companyId, other.id, { ref: "bug", title: "Bug", fields }, origin);
    await expect(setContactForm(ctx.db, companyId, game.id, elsewhere.id, origin)).rejects.toMatchObject({ code: "not_found" });
    const moved = await setContactForm(ctx.db, companyId, game.id, bug.id, origin);
    expect(moved.map((collector) => [collector.ref, collector.contactForm])).toEqual([["contact", false], ["bug", true]]);
    // Choosing it again writes nothing.
    const before = (await audit(companyId)).length;
    await setContactForm(ctx.db, companyId, game.id, bug.id, origin);
    expect((await audit(companyId)).length).toBe(before);

    const retired = await retireCollector(ctx.db, companyId, bug.id, origin);
    expect(retired).toMatchObject({ contactForm: false, retiredAt: expect.any(Date) });
    expect((await listCollectors(ctx.db, companyId, game.id)).map((collector) => [collector.ref, collector.contactForm])).toEqual([["contact", false]]);
    await expect(getCollector(ctx.db, companyId, bug.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(retireCollector(ctx.db, companyId, bug.id, origin)).rejects.toMatchObject({ code: "not_found" });
    // Its ref is free again, and the game may have a contact form again.
    const newBug = await createCollector(ctx.db, companyId, game.id, { ref: "bug", title: "Bug again", fields }, origin);
    await setContactForm(ctx.db, companyId, game.id, contact.id, origin);
    expect((await listCollectors(ctx.db, companyId, game.id)).map((collector) => [collector.id, collector.contactForm])).toEqual([[contact.id, true], [newBug.id, false]]);
    await setContactForm(ctx.db, companyId, game.id, null, origin);
    expect((await listCollectors(ctx.db, companyId, game.id)).some((collector) => collector.contactForm)).toBe(false);

    const actions = (await audit(companyId)).map((entry) => entry.action).filter((action) => action.startsWith("collector."));
    expect(actions.filter((action) => action === "collector.contact_form_changed")).toHaveLength(3);
    expect(actions.filter((action) => action === "collector.retired")).toHaveLength(1);
    // A creation without an admin (a tenant file's) is recorded by the file's entry, not here.
    expect(actions.filter((action) => action === "collector.created")).toHaveLength(3);
  });

  it("another company's collector or game is not found", async () => {
    const mine = await setup();
    const theirs = await setup();
    const collector = await createCollector(ctx.db, theirs.companyId, theirs.game.id, { ref: "x", title: "X", fields }, origin);
    await expect(changeCollector(ctx.db, mine.companyId, collector.id, { title: "Mine", fields }, origin)).rejects.toMatchObject({ code: "not_found" });
    await expect(retireCollector(ctx.db, mine.companyId, collector.id, origin)).rejects.toMatchObject({ code: "not_found" });
    await expect(createCollector(ctx.db, mine.companyId, theirs.game.id, { ref: "y", title: "Y", fields }, origin)).rejects.toMatchObject({ code: "not_found" });
    await expect(setContactForm(ctx.db, mine.companyId, mine.game.id, collector.id, origin)).rejects.toMatchObject({ code: "not_found" });
  });
});
