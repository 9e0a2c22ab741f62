// Attachments of POST /tickets and of agents' messages and notes against the real media service
// and its S3 (an s3rver that checks signatures): an upload made through the pre-signed URL can be
// used in a ticket; an unknown id, another game's or company's, or an upload that never completed
// is a 400 naming its place in the request, and nothing is written.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, failureOf, startTickets, tenantFile, type TenantResult, type TicketsTestContext } from "./context.ts";
import { createRequest } from "./helpers.ts";

describe("attachments of new tickets", () => {
  let ctx: TicketsTestContext;
  let tenant: TenantResult;
  let other: TenantResult;

  beforeAll(async () => {
    ctx = await startTickets();
    tenant = await ctx.applyTenant(tenantFile());
    other = await ctx.applyTenant(tenantFile());
  });
  afterAll(() => ctx?.stop());

  /** Asks media for an upload of `bytes` and, unless `put` is false, PUTs them as a client must. */
  async function uploaded(owner: TenantResult, game: "galaxy" | "farm", bytes: Uint8Array, options: { put?: boolean } = {}) {
    const instruction = await ctx.media.createAttachmentUpload({
      companyId: owner.companyId,
      gameId: owner.games[game]!.id,
      fileName: "crash.png",
      fileType: "image/png",
      fileSize: BigInt(bytes.length),
    });
    if (options.put !== false) {
      const response = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes });
      expect(response.status, await response.text()).toBe(200);
    }
    return instruction.attachmentId;
  }

  async function ticketCount(owner: TenantResult): Promise<number> {
    return (await ctx.tickets.listTickets({ companyId: owner.companyId, limit: 1000 })).tickets.length;
  }

  it("creates a ticket whose first PLAYER_MESSAGE carries uploaded attachments, in order", async () => {
    const first = await uploaded(tenant, "galaxy", randomBytes(2048));
    const second = await uploaded(tenant, "galaxy", randomBytes(10));
    const request = createRequest(tenant, { attachments: [first, second] });
    const { ticketId } = await ctx.tickets.createTicket(request);

    const { events } = await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId });
    expect(events[0]!.payload).toEqual({
      case: "playerMessage",
      value: expect.objectContaining({ message: request.message, attachments: [expect.objectContaining({ id: first }), expect.objectContaining({ id: second })] }),
    });
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.message_added" && (e.data as { ticketId: string }).ticketId === ticketId));
    const added = ctx.published.find((e) => e.type === "tickets.ticket.message_added" && (e.data as { ticketId: string }).ticketId === ticketId)!;
    expect(added.data).toMatchObject({ type: "PLAYER_MESSAGE", attachments: [{ id: first }, { id: second }] });

    // Media recorded the ticket and its player, so that the player's erasure finds the files.
    const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId });
    // (A claim for the same ticket is answered again; no other ticket can claim them.)
    const { attachments } = await ctx.media.claimAttachments({ companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, ticketId, attachmentIds: [first] });
    expect(attachments[0]).toMatchObject({ ticketId, servicePlayerId: ticket!.servicePlayerId });
    await expect(ctx.tickets.createTicket(createRequest(tenant, { attachments: [first] }))).rejects.toMatchObject({ code: "invalid_argument" });
  });

  it("lists an attachment named twice once", async () => {
    const id = await uploaded(tenant, "galaxy", randomBytes(16));
    const { ticketId } = await ctx.tickets.createTicket(createRequest(tenant, { attachments: [id, id] }));
    const { events } = await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId });
    expect((events[0]!.payload.value as { attachments: { id: string }[] }).attachments.map((a) => a.id)).toEqual([id]);
  });

  it("refuses an unknown id, another game's, another company's and an incomplete upload, naming each index", async () => {
    const good = await uploaded(tenant, "galaxy", randomBytes(32));
    const otherGame = await uploaded(tenant, "farm", randomBytes(32));
    const otherCompany = await uploaded(other, "galaxy", randomBytes(32));
    const incomplete = await uploaded(tenant, "galaxy", randomBytes(32), { put: false });
    const before = await ticketCount(tenant);

    const failure = await failureOf(
      ctx.tickets.createTicket(createRequest(tenant, { attachments: [good, "AAAAAAAAAAAAAAAAAAAAAAAA", otherGame, otherCompany, incomplete] })),
    );
    expect(failure).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
    expect(failure.details?.issues?.map((issue) => issue.path)).toEqual(["/attachments/1", "/attachments/2", "/attachments/3", "/attachments/4"]);
    expect(failure.details?.issues?.[3]?.message).toMatch(/not complete/);
    expect(await ticketCount(tenant)).toBe(before);

    const single = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { attachments: [incomplete] })));
    expect(single.details?.issues).toEqual([{ path: "/attachments/0", message: expect.stringMatching(/not complete/) }]);
  });

  it("claims the files of an agent's message and note for the ticket, names a bad one by its action, and writes nothing then", async () => {
    const { ticketId } = await ctx.tickets.createTicket(createRequest(tenant));
    const forReply = await uploaded(tenant, "galaxy", randomBytes(64));
    const forNote = await uploaded(tenant, "galaxy", randomBytes(64));
    const otherGame = await uploaded(tenant, "farm", randomBytes(64));
    const eventCount = async () => (await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId })).events.length;
    const before = await eventCount();

    const refused = await failureOf(ctx.tickets.performTicketActions({
      companyId: tenant.companyId,
      ticketId,
      actions: [
        { action: { case: "sendMessage", value: { message: "Here", attachments: [forReply] } } },
        { action: { case: "addPrivateNote", value: { message: "Internal", attachments: [forNote, otherGame] } } },
      ],
    }));
    expect(refused.details?.issues?.map((issue) => issue.path)).toEqual(["/actions/1/attachments/1"]);
    expect(await eventCount()).toBe(before);

    await ctx.tickets.performTicketActions({
      companyId: tenant.companyId,
      ticketId,
      actions: [
        { action: { case: "sendMessage", value: { message: "Here", attachments: [forReply] } } },
        { action: { case: "addPrivateNote", value: { message: "Internal", attachments: [forNote] } } },
      ],
    });
    const { events } = await ctx.tickets.listTicketEvents({ companyId: tenant.companyId, ticketId });
    expect(events.slice(-2).map((event) => [event.payload.case, (event.payload.value as { attachments: { id: string }[] }).attachments.map((a) => a.id)])).toEqual([
      ["agentMessage", [forReply]],
      ["privateNote", [forNote]],
    ]);
    await eventually(() => ctx.published.filter((e) => e.type === "tickets.ticket.message_added" && (e.data as { ticketId: string }).ticketId === ticketId).length === 3);
    const added = ctx.published.filter((e) => e.type === "tickets.ticket.message_added" && (e.data as { ticketId: string }).ticketId === ticketId);
    expect(added.slice(1).map((e) => (e.data as { attachments: { id: string }[] }).attachments)).toEqual([[{ id: forReply }], [{ id: forNote }]]);
    // Claimed for this ticket: another one cannot use them.
    const { ticketId: another } = await ctx.tickets.createTicket(createRequest(tenant));
    const taken = await failureOf(ctx.tickets.performTicketActions({
      companyId: tenant.companyId, ticketId: another, actions: [{ action: { case: "sendMessage", value: { message: "Mine", attachments: [forReply] } } }],
    }));
    expect(taken.details?.issues?.map((issue) => issue.path)).toEqual(["/actions/0/attachments/0"]);
  });

  it("checks its own rules first: a bad request never reaches media", async () => {
    const failure = await failureOf(ctx.tickets.createTicket(createRequest(tenant, { attachments: ["x"], language: "xx" })));
    expect(failure.details?.issues?.map((issue) => issue.path)).toEqual(["/language"]);
  });
});
