// The domain events actually published match the JSON Schemas of docs/events.md: every
// schema block of the document is compiled, and every event of a realistic run (creation,
// every action, auto-close, a player's collector answer and CSAT, a player's erasure) is validated against the envelope and its type's schema.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICKET_EVENT_TYPES } from "../src/tickets/domain-events.ts";
import { eventually, startTickets, tenantFile, type TicketsTestContext } from "./context.ts";
import { act, createTicket } from "./helpers.ts";

const BASE = "https://support.example/schemas/tickets/";
const document = readFileSync(new URL("../docs/events.md", import.meta.url), "utf8");
const schemas = [...document.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as { $id?: string });

describe("published events against docs/events.md", () => {
  let ctx: TicketsTestContext;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);

  beforeAll(async () => {
    for (const schema of schemas) if (schema.$id) ajv.addSchema(schema);
    ctx = await startTickets();
    const tenant = await ctx.applyTenant(tenantFile({ autoCloseWaitingAfterHours: 1 }));
    const alice = tenant.users.alice!;
    const { ticketId } = await createTicket(ctx, tenant, { tags: ["bug"], fields: { level: 2 }, platform: "web" });
    await act(ctx, tenant, ticketId, [
      { action: { case: "assignTicket", value: { assigneeId: alice, userId: alice } } },
      { action: { case: "addTags", value: { tagNames: ["vip"] } } },
      { action: { case: "removeTags", value: { tagNames: ["bug"] } } },
      { action: { case: "setFields", value: { fields: { level: 3, ship: ["fighter"] } } } },
      { action: { case: "sendMessage", value: { message: "hello" } } },
      { action: { case: "addPrivateNote", value: { message: "note" } } },
      { action: { case: "unassignTicket", value: {} } },
      { action: { case: "setStatus", value: { status: "waiting" } } },
    ]);
    await ctx.server.autoClose.runOnce(new Date(Date.now() + 2 * 3_600_000));
    // The player side: a collector answer on a waiting ticket, then a CSAT once resolved.
    const rated = await createTicket(ctx, tenant);
    const { ticket: ratedTicket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: rated.ticketId });
    const owner = { companyId: tenant.companyId, gameId: tenant.games.galaxy!.id, playerId: ratedTicket!.playerId! };
    await act(ctx, tenant, rated.ticketId, [{ action: { case: "setStatus", value: { status: "waiting" } } }]);
    await ctx.playerSide.addCollectorResult({
      owner,
      ticketId: rated.ticketId,
      collectorId: "5b0c7a3e-1d2f-4e5a-9b8c-7d6e5f4a3b2c",
      title: "Your device",
      fields: [
        { key: "model", label: "Model", type: "TEXT", value: { kind: { case: "stringValue", value: "Pixel" } } },
        { label: "Platforms", type: "DROPDOWN", value: { kind: { case: "listValue", value: { values: [{ kind: { case: "stringValue", value: "android" } }] } } } },
        { key: "agree", label: "Agree", type: "CHECKBOX", value: { kind: { case: "boolValue", value: true } } },
        { key: "shot", label: "Screenshot", type: "FILE" },
      ],
    });
    await act(ctx, tenant, rated.ticketId, [{ action: { case: "resolveTicket", value: {} } }]);
    await ctx.playerSide.submitCsat({ owner, ticketId: rated.ticketId, score: 4, review: "Quick, thanks" });
    const second = await createTicket(ctx, tenant, { player: { email: "anonymous@example.com" } });
    await act(ctx, tenant, second.ticketId, [{ action: { case: "rejectTicket", value: {} } }]);
    const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: second.ticketId });
    await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId: ticket!.servicePlayerId! });
    await eventually(() => ctx.published.filter((e) => e.type === "tickets.ticket.closed").length === 3);
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.deleted"));
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.rated"));
  });
  afterAll(() => ctx?.stop());

  it("documents a schema for every event type", () => {
    const documented = schemas.map((schema) => schema.$id).filter((id) => id?.includes("/ticket."));
    expect(documented.sort()).toEqual(Object.values(TICKET_EVENT_TYPES).map((type) => `${BASE}${type.replace("tickets.", "")}.json`).sort());
  });

  it("publishes every event type, each matching its schema", () => {
    expect(new Set(ctx.published.map((e) => e.type))).toEqual(new Set(Object.values(TICKET_EVENT_TYPES)));
    const rated = ctx.published.find((e) => e.type === "tickets.ticket.rated")!;
    expect(rated.data).toMatchObject({ score: 4, review: "Quick, thanks", actor: { type: "player" } });
    const answered = ctx.published.find((e) => e.type === "tickets.ticket.collector_result_added")!;
    expect(answered.data).toMatchObject({ title: "Your device", fields: [{ key: "model", value: "Pixel" }, { key: null, value: ["android"] }, { value: true }, { type: "FILE", attachments: [] }] });
    const order = ctx.published.filter((e) => (e.data as { ticketId?: string }).ticketId === (answered.data as { ticketId: string }).ticketId).map((e) => e.type);
    expect(order.slice(order.indexOf("tickets.ticket.collector_result_added") - 1)).toEqual([
      "tickets.ticket.status_changed", "tickets.ticket.collector_result_added", "tickets.ticket.status_changed", "tickets.ticket.closed", "tickets.ticket.rated",
    ]);
    for (const event of ctx.published) {
      const envelope = ajv.getSchema(`${BASE}envelope.json`)!;
      expect(envelope(event) ? null : envelope.errors, event.type).toBeNull();
      const validate = ajv.getSchema(`${BASE}${event.type.replace("tickets.", "")}.json`)!;
      expect(validate(event.data) ? null : validate.errors, `${event.type} ${JSON.stringify(event.data)}`).toBeNull();
    }
  });

  it("has schemas that refuse what the events must not carry", () => {
    const statusChanged = ctx.published.find((e) => e.type === "tickets.ticket.status_changed")!;
    const validate = ajv.getSchema(`${BASE}ticket.status_changed.json`)!;
    expect(validate({ ...statusChanged.data, to: "open" })).toBe(false);
    expect(validate({ ...statusChanged.data, ticketId: "nope" })).toBe(false);
    expect(validate({ ...statusChanged.data, actor: { type: "robot", id: null } })).toBe(false);
    const { runningId: _omitted, ...withoutRunningId } = statusChanged.data as Record<string, unknown>;
    expect(validate(withoutRunningId)).toBe(false);
    const rated = ctx.published.find((e) => e.type === "tickets.ticket.rated")!;
    const validateRated = ajv.getSchema(`${BASE}ticket.rated.json`)!;
    expect(validateRated({ ...rated.data, score: 6 })).toBe(false);
    const answered = ctx.published.find((e) => e.type === "tickets.ticket.collector_result_added")!;
    const validateAnswered = ajv.getSchema(`${BASE}ticket.collector_result_added.json`)!;
    const fields = (answered.data as { fields: Record<string, unknown>[] }).fields;
    expect(validateAnswered({ ...answered.data, fields: [{ ...fields[3], value: "x" }] })).toBe(false);
    expect(validateAnswered({ ...answered.data, fields: [{ key: null, label: "L", type: "TEXT" }] })).toBe(false);
  });
});
