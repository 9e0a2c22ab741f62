// Resource content (localized title, Markdown body) and collector definitions through the
// running service: what a tenant file provisions is what GetGame, ListCollectors and
// GetCollector return, and nothing of another company is visible.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollector } from "../src/collectors/collector.service.ts";
import { createResource } from "../src/games/game.service.ts";
import { applyTenant } from "../src/tenants/tenant.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

let ctx: ContentTestContext;

beforeAll(async () => {
  ctx = await startContent();
});

afterAll(async () => {
  await ctx?.stop();
});

let digestCounter = 0;
const digest = () => (digestCounter += 1).toString(16).padStart(64, "a");

const contactForm = {
  ref: "contact",
  title: "Contact us",
  contactForm: true,
  fields: [
    { key: "topic", label: "Topic", type: "DROPDOWN", options: ["Billing", "Bug"], required: true },
    { key: "details", label: "Details", type: "TEXT" },
  ],
};

describe("resources with content", () => {
  it("keeps a plain title and body as the primary language's, and maps as given", async () => {
    const applied = await applyTenant(ctx.db, digest(), {
      company: { name: "Resources Co", primaryLanguage: "de" },
      games: [
        {
          ref: "g", name: "G", slug: "g", languages: ["de", "en"],
          resources: [
            { key: "faq", title: "FAQ" },
            { key: "billing", title: { en: "Billing", de: "Abrechnung" }, body: { en: "# Pay", de: null } },
            { key: "refunds", title: "Erstattung", body: "**Geld** zurück" },
          ],
        },
      ],
    });
    const { resources } = await ctx.client.getGame({ companyId: applied.companyId, gameId: applied.games[0]!.gameId });
    // In the file's order.
    expect(resources.map((r) => ({ key: r.key, title: r.title, titleLocalized: r.titleLocalized, body: r.body }))).toEqual([
      { key: "faq", title: "FAQ", titleLocalized: { de: "FAQ" }, body: {} },
      { key: "billing", title: "Abrechnung", titleLocalized: { en: "Billing", de: "Abrechnung" }, body: { en: "# Pay", de: null } },
      { key: "refunds", title: "Erstattung", titleLocalized: { de: "Erstattung" }, body: { de: "**Geld** zurück" } },
    ]);
  });

  it("refuses a title without any nonblank text and a language that is not one", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    const blank = await failureOf(createResource(ctx.db, company.id, game.id, { key: "a", title: { en: " " } }));
    expect(blank.code).toBe("invalid_argument");
    expect(blank.issues).toContainEqual(expect.objectContaining({ path: "/title" }));
    const language = await failureOf(createResource(ctx.db, company.id, game.id, { key: "b", title: "B", body: { xx: "?" } }));
    expect(language.issues).toContainEqual(expect.objectContaining({ path: "/body/xx" }));
  });
});

describe("collector definitions", () => {
  it("are provisioned by a tenant file, listed per game and found by id within the company only", async () => {
    const applied = await applyTenant(ctx.db, digest(), {
      company: { name: "Collectors Co" },
      games: [
        {
          ref: "g", name: "G", slug: "g", languages: ["en"],
          collectors: [contactForm, { ref: "crash", title: "Crash report", fields: [{ key: "shot", label: "Screenshot", type: "FILE", required: true }] }],
        },
      ],
    });
    const game = applied.games[0]!;
    expect(game.collectors?.map((c) => c.ref)).toEqual(["contact", "crash"]);
    const { collectors } = await ctx.client.listCollectors({ companyId: applied.companyId, gameId: game.gameId });
    expect(collectors.map((c) => ({ id: c.id, ref: c.ref, contactForm: c.contactForm }))).toEqual([
      { id: game.collectors![0]!.collectorId, ref: "contact", contactForm: true },
      { id: game.collectors![1]!.collectorId, ref: "crash", contactForm: false },
    ]);
    expect(collectors[0]!.fields.map((f) => ({ key: f.key, label: f.label, type: f.type, options: f.options, required: f.required }))).toEqual([
      { key: "topic", label: "Topic", type: "DROPDOWN", options: ["Billing", "Bug"], required: true },
      { key: "details", label: "Details", type: "TEXT", options: [], required: false },
    ]);

    const found = await ctx.client.getCollector({ companyId: applied.companyId, collectorId: game.collectors![1]!.collectorId });
    expect(found.collector?.title).toBe("Crash report");
    const other = await seedCompany(ctx.db);
    expect((await failureOf(ctx.client.getCollector({ companyId: other.id, collectorId: game.collectors![1]!.collectorId }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.listCollectors({ companyId: other.id, gameId: game.gameId }))).code).toBe("not_found");
  });

  it("refuses options on a type without them, a dropdown without options, two contact forms and duplicate keys", async () => {
    const failure = await failureOf(
      applyTenant(ctx.db, digest(), {
        company: { name: "Bad Collectors Co" },
        games: [
          {
            ref: "g", name: "G", slug: "g", languages: ["en"],
            collectors: [
              contactForm,
              {
                ref: "two", title: "Two", contactForm: true,
                fields: [
                  { key: "a", label: "A", type: "TEXT", options: ["x"] },
                  { key: "a", label: "B", type: "DROPDOWN" },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(failure.code).toBe("invalid_argument");
    expect(failure.issues?.map((issue) => issue.path).sort()).toEqual([
      "/games/0/collectors/1/contactForm",
      "/games/0/collectors/1/fields/0/options",
      "/games/0/collectors/1/fields/1/key",
      "/games/0/collectors/1/fields/1/options",
    ]);
  });

  it("checks a definition made through the use case too", async () => {
    const company = await seedCompany(ctx.db);
    const { game } = await seedGame(ctx.db, company.id);
    const failure = await failureOf(createCollector(ctx.db, company.id, game.id, { ref: "c", title: "C", fields: [{ key: "k", label: "K", type: "COLOR" }] }));
    expect(failure.issues).toEqual([expect.objectContaining({ path: "/fields/0/type" })]);
    await createCollector(ctx.db, company.id, game.id, contactForm);
    const second = await failureOf(createCollector(ctx.db, company.id, game.id, { ...contactForm, ref: "other" }));
    expect(second.code).toBe("conflict");
  });
});
