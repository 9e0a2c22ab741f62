// The domain events actually published match the JSON Schemas of docs/events.md: every
// schema block of the document is compiled, and every event of a realistic run (creation,
// every action, auto-close, a player's erasure) is validated against the envelope and its type's schema.
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
    const second = await createTicket(ctx, tenant, { player: { email: "anonymous@example.com" } });
    await act(ctx, tenant, second.ticketId, [{ action: { case: "rejectTicket", value: {} } }]);
    const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId: second.ticketId });
    await ctx.tickets.erasePlayerTickets({ companyId: tenant.companyId, servicePlayerId: ticket!.servicePlayerId! });
    await eventually(() => ctx.published.filter((e) => e.type === "tickets.ticket.closed").length === 2);
    await eventually(() => ctx.published.some((e) => e.type === "tickets.ticket.deleted"));
  });
  afterAll(() => ctx?.stop());

  it("documents a schema for every event type", () => {
    const documented = schemas.map((schema) => schema.$id).filter((id) => id?.includes("/ticket."));
    expect(documented.sort()).toEqual(Object.values(TICKET_EVENT_TYPES).map((type) => `${BASE}${type.replace("tickets.", "")}.json`).sort());
  });

  it("publishes every event type, each matching its schema", () => {
    expect(new Set(ctx.published.map((e) => e.type))).toEqual(new Set(Object.values(TICKET_EVENT_TYPES)));
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
  });
});
