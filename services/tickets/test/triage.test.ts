// Triage of the AI flags through the real stack: a model trained on tickets agents labelled and
// resolved, a new ticket's value set above the company's threshold (attributed to the triage in
// the ticket's history and the domain events) and a suggestion below it, a suggestion applied
// and one dismissed as an agent, and agents' corrections counted in the online precision.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket, getTicket, inParallel } from "./helpers.ts";

const BUG = ["The game crashes when I open the map", "Game keeps crashing at the loading screen", "Crash after the update on startup", "It froze and crashed during the boss fight"];
const PAYMENT = ["I was charged twice for the gem pack", "My purchase of coins did not arrive", "Payment went through but no gems", "Refund please, I bought the wrong bundle"];

function triageTenant() {
  const file = tenantFile();
  return {
    ...file,
    tags: [...file.tags, { name: "payment", game: null, isAiTag: true }].map((tag) => (tag.name === "bug" ? { ...tag, isAiTag: true } : tag)),
    fields: [...file.fields, { key: "category", name: "Category", type: "dropdown", game: null, options: ["technical", "billing", "other"], isAiField: true }],
  };
}

describe("triage of the AI flags", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let alice: string;
  let file: ReturnType<typeof triageTenant>;

  const newTicket = async (message: string) => (await createTicket(ctx, tenant, { message })).ticketId;
  const classified = (ticketId: string) => eventually(async () => (await ctx.db.selectFrom("triage_runs").select("ticket_id").where("ticket_id", "=", ticketId).executeTakeFirst()) !== undefined);
  const tagChanges = (ticketId: string) => ctx.db.selectFrom("ticket_events").select(["actor", "data"]).where("ticket_id", "=", ticketId).where("type", "=", "TAGS_CHANGED").orderBy("seq").execute();
  const settingsOf = async (companyId: string) => (await ctx.tickets.getTriageSettings({ companyId })).settings!;
  const predictionsOf = async (ticketId: string, userId = alice) => (await ctx.tickets.listTicketTriage({ companyId: tenant.companyId, ticketId, actingUserId: userId })).predictions;

  beforeAll(async () => {
    ctx = await startTickets();
    file = triageTenant();
    tenant = await ctx.applyTenant(file);
    alice = tenant.users.alice!;
    // 56 tickets an agent labelled and resolved, and 4 whose only tag came from an integration
    // (an API key): those teach nothing, so their wrong tag must not reach the model.
    await inParallel(60, 4, async (i) => {
      const bug = i % 2 === 0;
      const ticketId = await newTicket((bug ? BUG : PAYMENT)[Math.floor(i / 2) % 4]! + (i % 3 === 0 ? " please help" : ""));
      if (i >= 56) {
        await act(ctx, tenant, ticketId, [{ action: { case: "addTags", value: { tagNames: ["payment"] } } }, { action: { case: "resolveTicket", value: {} } }]);
        return;
      }
      await ctx.tickets.performTicketActions({
        companyId: tenant.companyId, ticketId, actingUserId: alice, actions: [
          { action: { case: "addTags", value: { tagNames: [bug ? "bug" : "payment"] } } },
          { action: { case: "setFields", value: { fields: { category: bug ? "technical" : "billing" } } } },
          { action: { case: "resolveTicket", value: {} } },
        ],
      });
    });
  }, 120_000);

  afterAll(async () => {
    await ctx?.stop();
  });

  it("trains on what agents decided, and refuses a threshold outside 0.5..1", async () => {
    const trained = await ctx.tickets.trainTriageModel({ companyId: tenant.companyId });
    expect(trained).toMatchObject({ tickets: 60, labelled: 56, trained: true });
    const settings = await settingsOf(tenant.companyId);
    expect(settings).toMatchObject({ threshold: 0.8, modelTickets: 56, modelTags: ["bug", "payment"], modelFields: ["category"] });
    for (const threshold of [0.49, 1.01, Number.NaN]) {
      const refused = await failureOf(ctx.tickets.updateTriageSettings({ companyId: tenant.companyId, threshold }));
      expect(refused).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/threshold" }] } });
    }
    expect((await ctx.tickets.updateTriageSettings({ companyId: tenant.companyId, threshold: 0.9 })).settings!.threshold).toBe(0.9);
  });

  it("sets values above the threshold as the triage, and suggests those below", async () => {
    const bugTicket = await newTicket("The game crashes every time I open the map");
    const paymentTicket = await newTicket("I was charged twice for the coins bundle");
    const mixedTicket = await newTicket("The shop crashed when I bought gems");
    await classified(bugTicket);
    await classified(paymentTicket);
    await classified(mixedTicket);

    const onBug = await predictionsOf(bugTicket);
    expect(onBug.find((p) => p.name === "bug")).toMatchObject({ kind: "tag", decision: "set", state: "set" });
    expect(onBug.find((p) => p.name === "bug")!.confidence).toBeGreaterThanOrEqual(0.9);
    const ticket = await getTicket(ctx, tenant, bugTicket);
    expect(ticket.tags).toContain("bug");
    expect(ticket.fields?.category).toBe("technical");
    expect(await tagChanges(bugTicket)).toEqual([{ actor: { type: "system", id: "triage" }, data: { added: ["bug"], removed: [] } }]);
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.tags_changed" && (e.data as { ticketId: string }).ticketId === bugTicket));
    const published = ctx.published.find((e) => e.type === "tickets.ticket.tags_changed" && (e.data as { ticketId: string }).ticketId === bugTicket)!;
    expect(published.data).toMatchObject({ added: ["bug"], actor: { type: "system", id: "triage" } });

    expect((await predictionsOf(paymentTicket)).find((p) => p.name === "payment")).toMatchObject({ decision: "set", state: "set" });
    expect((await getTicket(ctx, tenant, paymentTicket)).tags).toEqual(["payment"]);

    // Words of both: below the threshold, suggested and not set.
    const onMixed = await predictionsOf(mixedTicket);
    const suggestion = onMixed.find((p) => p.name === "bug")!;
    expect(suggestion).toMatchObject({ kind: "tag", decision: "suggest", state: "pending" });
    expect(suggestion.confidence).toBeGreaterThanOrEqual(0.5);
    expect(suggestion.confidence).toBeLessThan(0.9);
    expect(onMixed.every((p) => p.decision === "suggest" && p.confidence < 0.9)).toBe(true);
    const mixed = await getTicket(ctx, tenant, mixedTicket);
    expect(mixed.tags).toEqual([]);
    expect(mixed.fields?.category).toBeUndefined();
    expect(await tagChanges(mixedTicket)).toEqual([]);
  });

  it("applies a suggestion as the agent, once, and only for a user of the ticket's game", async () => {
    const ticketId = await newTicket("The shop crashed when I bought gems");
    await classified(ticketId);
    const suggestion = (await predictionsOf(ticketId)).find((p) => p.name === "bug" && p.state === "pending")!;
    const bob = tenant.users.bob!;
    expect((await failureOf(ctx.tickets.applyTriageSuggestion({ companyId: tenant.companyId, ticketId, suggestionId: suggestion.id, actingUserId: bob }))).code).toBe("not_found");

    const { ticket } = await ctx.tickets.applyTriageSuggestion({ companyId: tenant.companyId, ticketId, suggestionId: suggestion.id, actingUserId: alice });
    expect(ticket?.tags).toEqual(["bug"]);
    expect((await tagChanges(ticketId)).at(-1)).toEqual({ actor: { type: "user", id: alice }, data: { added: ["bug"], removed: [] } });
    expect((await predictionsOf(ticketId)).find((p) => p.id === suggestion.id)?.state).toBe("applied");
    expect((await failureOf(ctx.tickets.applyTriageSuggestion({ companyId: tenant.companyId, ticketId, suggestionId: suggestion.id, actingUserId: alice }))).code).toBe("conflict");
    expect((await failureOf(ctx.tickets.dismissTriageSuggestion({ companyId: tenant.companyId, ticketId, suggestionId: suggestion.id, actingUserId: alice }))).code).toBe("conflict");
  });

  it("counts agents' corrections and decisions in the online precision, per company", async () => {
    const before = await settingsOf(tenant.companyId);
    // A value the triage set, removed by an agent: wrong at once.
    const corrected = await newTicket("The game crashes every time I open the map");
    await classified(corrected);
    expect((await getTicket(ctx, tenant, corrected)).tags).toContain("bug");
    await ctx.tickets.performTicketActions({ companyId: tenant.companyId, ticketId: corrected, actingUserId: alice, actions: [{ action: { case: "removeTags", value: { tagNames: ["bug"] } } }] });
    // A suggestion dismissed: wrong.
    const dismissed = await newTicket("The shop crashed when I bought gems");
    await classified(dismissed);
    const suggestion = (await predictionsOf(dismissed)).find((p) => p.name === "bug")!;
    await ctx.tickets.dismissTriageSuggestion({ companyId: tenant.companyId, ticketId: dismissed, suggestionId: suggestion.id, actingUserId: alice });

    const after = await settingsOf(tenant.companyId);
    expect(after.set!.wrong).toBe(before.set!.wrong + 1);
    expect(after.suggest!.wrong).toBe(before.suggest!.wrong + 1);
    const bug = after.byName.find((entry) => entry.kind === "tag" && entry.name === "bug")!;
    expect(bug.set!.wrong).toBeGreaterThanOrEqual(1);
    // The suggestion applied in the test before counts right.
    expect(after.suggest!.right).toBeGreaterThanOrEqual(1);
    expect(after.suggest!.precision).toBeCloseTo(after.suggest!.right / (after.suggest!.right + after.suggest!.wrong));

    // Another company learns only from its own tickets: one resolved ticket an agent tagged
    // teaches its model too little to put anything forward on the same text, and its report is its own.
    const other = await ctx.applyTenant(triageTenant());
    const labelled = (await createTicket(ctx, other, { message: "Refund please" })).ticketId;
    await ctx.tickets.performTicketActions({
      companyId: other.companyId, ticketId: labelled, actingUserId: other.users.alice!,
      actions: [{ action: { case: "addTags", value: { tagNames: ["payment"] } } }, { action: { case: "resolveTicket", value: {} } }],
    });
    expect(await ctx.tickets.trainTriageModel({ companyId: other.companyId })).toMatchObject({ tickets: 1, labelled: 1, trained: true });
    const foreign = (await createTicket(ctx, other, { message: "The game crashes every time I open the map" })).ticketId;
    await classified(foreign);
    expect((await getTicket(ctx, other, foreign)).tags).toEqual([]);
    expect((await ctx.tickets.listTicketTriage({ companyId: other.companyId, ticketId: foreign, actingUserId: other.users.alice! })).predictions).toEqual([]);
    expect(await settingsOf(other.companyId)).toMatchObject({ threshold: 0.8, modelTickets: 1, set: { right: 0, wrong: 0 }, suggest: { right: 0, wrong: 0 } });
    expect((await failureOf(ctx.tickets.listTicketTriage({ companyId: other.companyId, ticketId: corrected, actingUserId: alice }))).code).toBe("not_found");
  });

  it("retrains when an AI flag changes, and in the periodic training", async () => {
    const before = await settingsOf(tenant.companyId);
    // An admin marks vip as an AI tag (here through the tenant file): the model follows at once.
    const edited = { ...file, tags: file.tags.map((tag) => (tag.name === "vip" ? { ...tag, isAiTag: true } : tag)) };
    await ctx.admin(["apply", "--company", tenant.companyId, "-"], JSON.stringify(edited));
    await eventually(async () => (await settingsOf(tenant.companyId)).modelTags.includes("vip"));
    const after = await settingsOf(tenant.companyId);
    expect(after.modelTags).toEqual(["bug", "payment", "vip"]);
    expect(after.modelTrainedAt!.seconds).toBeGreaterThanOrEqual(before.modelTrainedAt!.seconds);
    // The daily job trains every company with resolved tickets: both of this file's.
    expect(await ctx.server.triageTraining.runOnce()).toBeGreaterThanOrEqual(2);
  });
});
