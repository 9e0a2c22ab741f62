// Search in ListAgentTickets (`q`): full-text over messages, private notes and collector text
// answers in the ticket's language, CJK by pairs of characters, the player's fields by substring,
// the running number; always inside the company and the games given; with highlighted snippets.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

describe("ListAgentTickets search", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;
  let alice: string;
  let galaxy: string;
  let farm: string;
  /** A word no other test run writes, so results are this run's. */
  const tag = `zq${randomUUID().slice(0, 6).replace(/[^a-z]/g, "x")}`;

  const search = (q: string, games: string[] = [galaxy], tenantOf: TenantResult = tenant) =>
    ctx.tickets.listAgentTickets({ companyId: tenantOf.companyId, userId: alice, gameIds: games, q });
  const idsOf = async (q: string, games?: string[]) => (await search(q, games)).tickets.map((ticket) => ticket.id);
  const snippetText = (parts: { text: string; highlight: boolean }[]) => parts.map((part) => (part.highlight ? `[${part.text}]` : part.text)).join("");

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
    alice = tenant.users.alice!;
    galaxy = tenant.games.galaxy!.id;
    farm = tenant.games.farm!.id;
  });
  afterAll(() => ctx?.stop());

  it("finds a German message by another form of its word (German stemming) and highlights it", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { language: "de", message: `Meine Häuser sind nach dem Update verschwunden ${tag}` });
    const page = await search(`Haus ${tag}`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    const match = page.matches.find((m) => m.ticketId === ticketId)!;
    expect(match.field).toBe("message");
    expect(match.eventId).toBeDefined();
    expect(snippetText(match.snippet)).toContain("[Häuser]");
    expect(snippetText(match.snippet)).toContain(`[${tag}]`);
    // The same word in an English ticket is not stemmed the German way.
    const english = await createTicket(ctx, tenant, { language: "en", message: `Häuser ${tag} english` });
    expect(await idsOf(`Haus ${tag} english`)).toEqual([]);
    expect(await idsOf(`Häuser ${tag} english`)).toEqual([english.ticketId]);
  });

  it("finds English words by stem, needs every word, and reads a quoted phrase in order", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { language: "en", message: `I was charged twice for the golden armor ${tag}x` });
    expect(await idsOf(`charges armors ${tag}x`)).toEqual([ticketId]);
    expect(await idsOf(`charged silver ${tag}x`)).toEqual([]);
    expect(await idsOf(`"golden armor" ${tag}x`)).toEqual([ticketId]);
    expect(await idsOf(`"armor golden" ${tag}x`)).toEqual([]);
    expect(await idsOf(`golden -armor ${tag}x`)).toEqual([]);
  });

  it("shows a long message as short fragments around its matches", async () => {
    const filler = (word: string) => Array.from({ length: 40 }, () => word).join(" ");
    const message = `${filler("alpha")} the dragon egg vanished ${tag}long ${filler("omega")}`;
    const { ticketId } = await createTicket(ctx, tenant, { message });
    const page = await search(`dragon ${tag}long`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    const snippet = snippetText(page.matches[0]!.snippet);
    expect(snippet).toContain("[dragon]");
    expect(snippet.length).toBeLessThan(message.length / 2);
  });

  it("finds a Japanese substring through character pairs, and not the same characters apart", async () => {
    const marker = `${tag}ja`;
    const { ticketId } = await createTicket(ctx, tenant, { language: "ja", message: `アカウントにログインできません。${marker}` });
    const apart = await createTicket(ctx, tenant, { language: "ja", message: `ログとインの話です ${marker}` });
    const page = await search(`ログイン ${marker}`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    expect(snippetText(page.matches[0]!.snippet)).toContain("[ログイン]");
    expect(await idsOf(`ログ ${marker}`)).toEqual(expect.arrayContaining([ticketId, apart.ticketId]));
    // Chinese and Korean the same way.
    const zh = await createTicket(ctx, tenant, { language: "zh", message: `我的账号被封了 ${marker}` });
    expect(await idsOf(`账号 ${marker}`)).toEqual([zh.ticketId]);
    const ko = await createTicket(ctx, tenant, { language: "ko", message: `결제가 두번 되었어요 ${marker}` });
    expect(await idsOf(`결제 ${marker}`)).toEqual([ko.ticketId]);
  });

  it("finds a private note and an agent message, newest match shown", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { message: `Hello ${tag}n` });
    await act(ctx, tenant, ticketId, [{ action: { case: "addPrivateNote", value: { message: `Suspected chargeback fraud ${tag}n` } } }]);
    const page = await search(`chargeback ${tag}n`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    expect(page.matches[0]).toMatchObject({ ticketId, field: "note" });
    expect(snippetText(page.matches[0]!.snippet)).toBe(`Suspected [chargeback] fraud [${tag}n]`);
  });

  it("finds a collector's text answer, and not its other answers", async () => {
    const { ticketId } = await createTicket(ctx, tenant, { message: `Form ticket ${tag}c` });
    // Written as the player side stores a collector result (its search configuration from the ticket's language, its ticket's running id).
    await sql`
      insert into ticket_events (ticket_id, company_id, ticket_running_id, type, data, actor, search_config)
      values (${ticketId}, ${tenant.companyId}, (select running_id from tickets where id = ${ticketId}), 'COLLECTOR_RESULT', ${JSON.stringify({
        collectorId: randomUUID(), resultId: randomUUID(), title: "Lost item",
        fields: [{ key: "where", label: "Where", type: "TEXT", value: `near the volcano ${tag}c` }, { key: "kind", label: "Kind", type: "DROPDOWN", value: "sword" }],
      })}::jsonb, '{"type":"player","id":null}'::jsonb, ticket_search_config('en'))`.execute(ctx.db);
    const page = await search(`volcano ${tag}c`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    expect(page.matches[0]).toMatchObject({ field: "collectorAnswer" });
    expect(snippetText(page.matches[0]!.snippet)).toBe(`near the [volcano] [${tag}c]`);
    expect(await idsOf(`sword ${tag}c`)).toEqual([]);
  });

  it("finds a merged ticket's messages in the ticket it was merged into", async () => {
    const unique = randomUUID().slice(0, 8);
    const player = { id: `merge-${unique}`, name: "Mo", email: `mo-${unique}@example.com` };
    const target = await createTicket(ctx, tenant, { player, message: `First question ${tag}m` });
    const source = await createTicket(ctx, tenant, { player, message: `My dragon egg hatched wrong ${tag}m`, skipDuplicateCheck: true });
    await ctx.tickets.mergeTickets({ companyId: tenant.companyId, sourceTicketId: source.ticketId, targetTicketId: target.ticketId, actingUserId: alice });
    const page = await search(`dragon ${tag}m`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([source.ticketId, target.ticketId]);
    expect(page.matches.find((match) => match.ticketId === target.ticketId)).toMatchObject({ field: "message" });
  });

  it("finds the running number with #42 (only that ticket) and 42", async () => {
    const { ticketId, runningId } = await createTicket(ctx, tenant);
    const page = await search(`#${runningId}`);
    expect(page.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    expect(page.matches[0]).toMatchObject({ ticketId, field: "runningId", snippet: [{ text: `#${runningId}`, highlight: true }] });
    expect(await idsOf(String(runningId))).toContain(ticketId);
  });

  it("finds a fragment of the email, the name or the external id", async () => {
    const unique = randomUUID().slice(0, 8);
    const { ticketId } = await createTicket(ctx, tenant, { player: { id: `ext-${unique}-77`, name: `Kim Sørensen ${unique}`, email: `kim.${unique}@mail.example` } });
    const byEmail = await search(`kim.${unique}@mail`);
    expect(byEmail.tickets.map((ticket) => ticket.id)).toEqual([ticketId]);
    expect(byEmail.matches[0]).toMatchObject({ field: "email" });
    expect(snippetText(byEmail.matches[0]!.snippet)).toBe(`[kim.${unique}@mail].example`);
    expect(await idsOf(`${unique}-77`)).toEqual([ticketId]);
    expect((await search(`SØRENSEN ${unique}`)).matches[0]).toMatchObject({ field: "playerName" });
  });

  it("never finds another company's tickets or a game outside the ones given, newest first", async () => {
    const word = `${tag}scope`;
    const first = await createTicket(ctx, tenant, { message: `lost ${word}` });
    const second = await createTicket(ctx, tenant, { message: `lost again ${word}` });
    const inFarm = await createTicket(ctx, tenant, { gameId: farm, message: `lost ${word}` });
    const otherCompany = await createTicket(ctx, other, { message: `lost ${word}` });
    expect(await idsOf(word)).toEqual([second.ticketId, first.ticketId]);
    expect(await idsOf(word, [farm])).toEqual([inFarm.ticketId]);
    expect(await idsOf(word, [galaxy, farm])).toEqual([inFarm.ticketId, second.ticketId, first.ticketId]);
    expect((await search(word, [other.games.galaxy!.id])).tickets).toEqual([]);
    expect((await search(word, [other.games.galaxy!.id], other)).tickets.map((ticket) => ticket.id)).toEqual([otherCompany.ticketId]);
  });

  it("combines the search with the other filters and pages through results", async () => {
    const word = `${tag}page`;
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await createTicket(ctx, tenant, { message: `refund ${word} ${i}` })).ticketId);
    const first = await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId: alice, gameIds: [galaxy], q: word, limit: 2 });
    expect(first.tickets.map((ticket) => ticket.id)).toEqual([ids[2], ids[1]]);
    const second = await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId: alice, gameIds: [galaxy], q: word, limit: 2, cursor: first.nextCursor });
    expect(second.tickets.map((ticket) => ticket.id)).toEqual([ids[0]]);
    expect((await ctx.tickets.listAgentTickets({ companyId: tenant.companyId, userId: alice, gameIds: [galaxy], q: word, view: "closed_7d" })).tickets).toEqual([]);
  });

  it("answers text that is no query (punctuation, operators only) with no tickets, and refuses a too long one", async () => {
    expect((await search("!!! & | <->")).tickets).toEqual([]);
    expect((await search('"')).tickets).toEqual([]);
    const failure = await failureOf(search("x".repeat(201)));
    expect(failure.code).toBe("invalid_argument");
  });
});
