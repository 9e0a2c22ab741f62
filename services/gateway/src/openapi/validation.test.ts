// Request validation from the document: real bad inputs are refused with VALIDATION_ERROR issues whose
// paths point at the offending value, good inputs pass (coerced, with defaults), and the
// response check used by contract tests tells a good response from a broken one.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Router } from "@koa/router";
import { toHttpError } from "@support/rpc";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateOperation, validateRequest, validateResponse } from "./validation.ts";
import type { RequestParts, ValidatedRequest } from "./validation.ts";

const GAME_ID = "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";
const TICKET_ID = "9b2d7c4e-1f3a-4e8b-a6d5-0c9e8f7a6b5d";

const paths = (operationId: string, request: RequestParts) => validateRequest(operationId, request)?.map((issue) => issue.path) ?? [];

function ticketBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    gameId: GAME_ID,
    message: "I lost my sword",
    language: "en",
    channels: ["email"],
    metadata: { player: { email: "player@example.com" } },
    ...overrides,
  };
}

describe("validateRequest: POST /tickets", () => {
  it("accepts a minimal ticket and fills in the documented defaults", () => {
    const body = ticketBody();
    expect(validateRequest("createTicket", { body })).toBeNull();
    expect(body).toMatchObject({ attachments: [], skipDuplicateCheck: false, platform: "not_specified" });
  });

  it("accepts a full ticket", () => {
    const body = ticketBody({
      attachments: ["att_1"],
      skipDuplicateCheck: true,
      language: "pt-BR",
      platform: "switch_2",
      metadata: {
        player: { id: "p-1", name: "Ann", email: "ann@example.com", tier: 2 },
        tags: ["vip"],
        fields: { server: "eu-1", level: 42, premium: true, items: ["sword", "shield"] },
      },
    });
    expect(validateRequest("createTicket", { body })).toBeNull();
  });

  it("names the missing player email itself, not its parent", () => {
    const body = ticketBody({ metadata: { player: { name: "Ann" } } });
    expect(validateRequest("createTicket", { body })).toEqual([{ path: "/metadata/player/email", message: "is required" }]);
  });

  it("refuses a malformed player email", () => {
    expect(paths("createTicket", { body: ticketBody({ metadata: { player: { email: "not-an-email" } } }) })).toEqual([
      "/metadata/player/email",
    ]);
  });

  it("checks `format: email` by the services' own rule: a domain without a dot or a non-ASCII address is refused", () => {
    for (const email of ["player@localhost", "jörg@example.com", "ann..lee@example.com"]) {
      expect(paths("createTicket", { body: ticketBody({ metadata: { player: { email } } }) })).toEqual(["/metadata/player/email"]);
    }
    expect(paths("createTicket", { body: ticketBody({ metadata: { player: { email: "Ann.Lee+x@mail.example.co.uk" } } }) })).toEqual([]);
  });

  it("checks `format: uuid` by the services' own rule: the urn:uuid: form is refused", () => {
    expect(paths("performTicketActions", { params: { ticketId: `urn:uuid:${TICKET_ID}` }, body: { actions: [] } })).toEqual(["/path/ticketId", "/actions"]);
  });

  it("refuses a channel other than email at its index", () => {
    expect(validateRequest("createTicket", { body: ticketBody({ channels: ["chat"] }) })).toEqual([
      { path: "/channels/0", message: 'must be one of "email"' },
    ]);
    expect(paths("createTicket", { body: ticketBody({ channels: [] }) })).toEqual(["/channels"]);
  });

  it("refuses field values that are objects or nested arrays, and nothing else", () => {
    const body = ticketBody({
      metadata: { player: { email: "a@example.com" }, fields: { ok: "x", obj: { a: 1 }, nested: [["a"]], mixed: ["a", 1] } },
    });
    expect(paths("createTicket", { body })).toEqual(["/metadata/fields/obj", "/metadata/fields/nested/0", "/metadata/fields/mixed/1"]);
  });

  it("refuses unknown top-level keys, missing keys and bad values all at once", () => {
    const body = { gameId: "not-a-uuid", message: 1, language: "xx", channels: ["email"], metadata: { player: { email: "a@example.com" } }, extra: true };
    expect(paths("createTicket", { body }).sort()).toEqual(["/extra", "/gameId", "/language", "/message"].sort());
  });

  it("ignores unknown keys that game clients put in metadata and player", () => {
    const body = {
      gameId: "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11", message: "help", language: "en", channels: ["email"],
      metadata: { player: { email: "a@example.com", nick: "x" }, sdkVersion: "1.2" },
    };
    expect(validateRequest("createTicket", { body })).toBeNull();
  });

  it("refuses U+0000 in any string or key of the body, query or path, by its path", () => {
    const body = ticketBody({ message: "a\u0000b", metadata: { player: { email: "p@example.com", name: "\u0000" }, fields: { "k\u0000": 1 } } });
    expect(paths("createTicket", { body })).toEqual(["/message", "/metadata/player/name", "/metadata/fields/k\u0000"]);
    expect(paths("listTickets", { query: { playerId: "x\u0000" } })).toEqual(["/query/playerId"]);
    let deep: unknown = "\u0000";
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(paths("createTicket", { body: ticketBody({ metadata: { player: { email: "p@example.com" }, device: deep } }) })).toHaveLength(1);
  });

  it("refuses a missing or non-object body", () => {
    expect(paths("createTicket", {})).toEqual([""]);
    expect(paths("createTicket", { body: [] })).toEqual([""]);
  });
});

describe("validateRequest: GET /tickets query", () => {
  it("coerces the query strings and fills in the defaults", () => {
    const query: Record<string, unknown> = { limit: "50", gameId: GAME_ID, status: '["new"]' };
    expect(validateRequest("listTickets", { query })).toBeNull();
    expect(query).toEqual({ limit: 50, gameId: GAME_ID, status: '["new"]', order: "asc" });
    const empty: Record<string, unknown> = {};
    expect(validateRequest("listTickets", { query: empty })).toBeNull();
    expect(empty).toEqual({ order: "asc", limit: 100 });
  });

  it("refuses a limit outside 1..1000 or not an integer", () => {
    for (const limit of ["0", "1001", "-1", "1.5", "ten"]) {
      expect(paths("listTickets", { query: { limit } }), limit).toEqual(["/query/limit"]);
    }
    for (const limit of ["1", "1000"]) expect(validateRequest("listTickets", { query: { limit } }), limit).toBeNull();
  });

  it("accepts a date or an RFC 3339 date-time for createdAfter/createdBefore", () => {
    for (const value of ["2026-11-01", "2026-11-01T10:00:00Z", "2026-11-01T10:00:00.123+02:00"]) {
      expect(validateRequest("listTickets", { query: { createdAfter: value, createdBefore: value } }), value).toBeNull();
    }
    for (const value of ["yesterday", "2026-13-01", "2026-02-30", "2026-11-01T10:00:00", "1700000000"]) {
      expect(paths("listTickets", { query: { createdAfter: value } }), value).toEqual(["/query/createdAfter"]);
    }
  });

  it("refuses a bad order and uuids that are not uuids", () => {
    expect(paths("listTickets", { query: { order: "newest", ticketId: "7", gameId: "x" } }).sort()).toEqual(
      ["/query/gameId", "/query/order", "/query/ticketId"].sort(),
    );
  });

  it("refuses a repeated scalar parameter", () => {
    expect(paths("listTickets", { query: { limit: ["1", "2"] } })).toEqual(["/query/limit"]);
  });
});

describe("validateRequest: ticket actions", () => {
  const actions = (...list: unknown[]) => ({ params: { ticketId: TICKET_ID }, body: { actions: list } });

  it("accepts every action type with its fields", () => {
    const request = actions(
      { type: "addTags", tagNames: ["a"], userId: GAME_ID },
      { type: "removeTags", tagNames: ["b"] },
      { type: "setFields", fields: { level: 3, tags: ["x"] } },
      { type: "setOnHold", onHold: true },
      { type: "setPlayerInfo", player: { name: "Ann", tier: 3 } },
      { type: "sendMessage", message: "Hi", userId: GAME_ID },
      { type: "addPrivateNote", message: "note" },
      { type: "resolveTicket" },
      { type: "rejectTicket", userId: GAME_ID },
      { type: "assignTicket", assigneeId: GAME_ID },
      { type: "unassignTicket" },
    );
    expect(validateRequest("performTicketActions", request)).toBeNull();
  });

  it("leaves a second status action to the service: it is not a schema concern", () => {
    expect(validateRequest("performTicketActions", actions({ type: "setStatus", status: "waiting" }, { type: "setStatus", status: "assigned" }))).toBeNull();
  });

  it("refuses an unknown action type at that action's type", () => {
    expect(validateRequest("performTicketActions", actions({ type: "addTags", tagNames: ["a"] }, { type: "closeTicket" }))).toEqual([
      { path: "/actions/1/type", message: 'unknown value "closeTicket"' },
    ]);
    expect(paths("performTicketActions", actions({ tagNames: ["a"] }))).toEqual(["/actions/0/type"]);
  });

  it("refuses fields an action does not have, and missing or bad required ones", () => {
    expect(paths("performTicketActions", actions({ type: "setPlayerInfo", player: {}, userId: GAME_ID }))).toEqual(["/actions/0/userId"]);
    expect(paths("performTicketActions", actions({ type: "addTags", tagNames: [] }))).toEqual(["/actions/0/tagNames"]);
    expect(paths("performTicketActions", actions({ type: "setStatus", status: "closed" }))).toEqual(["/actions/0/status"]);
    expect(paths("performTicketActions", actions({ type: "sendMessage", message: "" }))).toEqual(["/actions/0/message"]);
    expect(paths("performTicketActions", actions({ type: "assignTicket" }))).toEqual(["/actions/0/assigneeId"]);
    expect(paths("performTicketActions", actions({ type: "setPlayerInfo", player: { tier: 4 } }))).toEqual(["/actions/0/player/tier"]);
  });

  it("refuses an empty action list and a ticket id that is not a uuid", () => {
    expect(paths("performTicketActions", { params: { ticketId: "42" }, body: { actions: [] } })).toEqual(["/path/ticketId", "/actions"]);
  });
});

describe("validateRequest: other routes", () => {
  it("requires all three announcement keys, and longContent may be null", () => {
    expect(validateRequest("putAnnouncement", { body: { shortContent: { en: "Hi" }, gameId: null } })).toEqual([
      { path: "/longContent", message: "is required" },
    ]);
    expect(validateRequest("putAnnouncement", { body: { shortContent: { en: "Hi" }, longContent: null, gameId: null } })).toBeNull();
    expect(validateRequest("putAnnouncement", { body: { shortContent: { en: "Hi", de: null }, longContent: {}, gameId: GAME_ID } })).toBeNull();
  });

  it("refuses announcement maps keyed by something other than a language code", () => {
    expect(paths("putAnnouncement", { body: { shortContent: { english: "Hi" }, longContent: { en: 5 }, gameId: "x" } })).toEqual([
      "/shortContent/english",
      "/longContent/en",
      "/gameId",
    ]);
  });

  it("refuses a game id path parameter that is not a uuid", () => {
    expect(paths("deleteGameAnnouncement", { params: { gameId: "abc" } })).toEqual(["/path/gameId"]);
    expect(validateRequest("deleteGameAnnouncement", { params: { gameId: GAME_ID } })).toBeNull();
  });

  it("bounds the attachment size and type", () => {
    const body = (fileSize: number, fileType = "image/png") => ({ body: { gameId: GAME_ID, fileName: "a.png", fileType, fileSize } });
    expect(validateRequest("createAttachment", body(209715200))).toBeNull();
    expect(paths("createAttachment", body(0))).toEqual(["/fileSize"]);
    expect(paths("createAttachment", body(209715201))).toEqual(["/fileSize"]);
    expect(paths("createAttachment", body(10, "image/webp"))).toEqual(["/fileType"]);
  });

  it("validates the public redirect's query, coercing tier and tags", () => {
    const query: Record<string, unknown> = { token: GAME_ID, "player.tier": "2", tags: "a,b", "fields.level": "3" };
    expect(validateRequest("redirectToSupportSession", { query })).toBeNull();
    expect(query).toMatchObject({ "player.tier": 2, tags: ["a,b"], "fields.level": "3" });
    expect(paths("redirectToSupportSession", { query: { language: "klingon", "player.tier": "5" } }).sort()).toEqual(
      ["/query/language", "/query/player.tier", "/query/token"].sort(),
    );
  });

  it("validates the public session body", () => {
    expect(validateRequest("createSupportSession", { body: { token: GAME_ID, player: {}, tags: [], fields: {} } })).toBeNull();
    expect(paths("createSupportSession", { body: { token: GAME_ID, language: "xx", player: { email: "nope" } } })).toEqual([
      "/language",
      "/player/email",
    ]);
  });

  it("throws for an operation the document does not have", () => {
    expect(() => validateRequest("noSuchOperation", {})).toThrow(/unknown operationId/);
  });
});

describe("validateResponse", () => {
  const ticket = () => ({
    id: TICKET_ID,
    runningId: 1,
    url: "https://support.example.com/tickets/" + TICKET_ID,
    gameId: GAME_ID,
    gameEnvironmentId: GAME_ID,
    servicePlayerId: null,
    playerId: null,
    playerName: null,
    email: "player@example.com",
    status: "new",
    supportSource: "API",
    channels: ["email"],
    language: "en",
    resolutionType: null,
    csatScore: null,
    csatReview: null,
    issueSummary: null,
    issueResolution: null,
    followUpTicketId: null,
    reopenedFromTicketId: null,
    createdAt: "2026-11-22T10:00:00.000Z",
    lastActivityAt: null,
    tags: [],
    fields: { level: 3 },
    metadata: { platform: "not_specified", playerTier: 1 },
  });

  it("accepts a well-formed ticket list", () => {
    expect(validateResponse("listTickets", 200, { tickets: [ticket(), { ...ticket(), status: "closed", resolutionType: "resolved", csatScore: 5 }], pagination: { cursor: null } })).toBeNull();
  });

  it("rejects a ticket missing a required field, naming it", () => {
    const broken: Record<string, unknown> = ticket();
    delete broken.runningId;
    expect(validateResponse("listTickets", 200, { tickets: [ticket(), broken], pagination: { cursor: "abc" } })).toEqual([
      { path: "/tickets/1/runningId", message: "is required" },
    ]);
  });

  it("rejects wrong values and a missing pagination", () => {
    expect(validateResponse("listTickets", 200, { tickets: [{ ...ticket(), status: "open", metadata: {} }] })?.map((i) => i.path).sort()).toEqual(
      ["/pagination", "/tickets/0/metadata/platform", "/tickets/0/status"].sort(),
    );
  });

  it("tolerates event types it does not know but checks the known ones", () => {
    const event = (type: string, extra: Record<string, unknown>) => ({ id: TICKET_ID, type, createdAt: "2026-11-22T10:00:00Z", ...extra });
    const good = [
      event("PLAYER_MESSAGE", { message: "hi", language: "en", attachments: [{ id: "a" }] }),
      event("CSAT", { score: 5, review: null }),
      event("END", { resolutionType: "auto_closed" }),
      event("COLLECTOR_RESULT", {
        collectorId: TICKET_ID,
        resultId: TICKET_ID,
        title: "Bug report",
        fields: [
          { key: "where", label: "Where?", type: "TEXT", value: null },
          { key: null, label: "Which?", type: "DROPDOWN", value: ["a"] },
          { key: "ok", label: "OK?", type: "CHECKBOX", value: true },
          { key: "shot", label: "Screenshot", type: "FILE", attachments: [{ id: "b" }] },
        ],
      }),
      event("SOMETHING_NEW", { anything: [1, 2] }),
    ];
    expect(validateResponse("listTicketEvents", 200, { events: good })).toBeNull();
    const bad = [event("CSAT", { score: 6, review: null }), event("END", { resolutionType: "merged" })];
    expect(validateResponse("listTicketEvents", 200, { events: bad })?.map((i) => i.path)).toEqual(["/events/0/score", "/events/1/resolutionType"]);
  });

  it("checks error bodies, statuses and required headers", () => {
    const duplicate = { code: "failed_precondition", message: "Duplicate", details: { type: "DUPLICATE_OPEN_TICKET_DETECTED", payload: { duplicateConversationId: TICKET_ID } } };
    expect(validateResponse("createTicket", 400, duplicate)).toBeNull();
    expect(validateResponse("createTicket", 400, { ...duplicate, details: { type: "DUPLICATE_OPEN_TICKET_DETECTED", payload: {} } })?.map((i) => i.path)).toEqual([
      "/details/payload/duplicateConversationId",
    ]);
    expect(validateResponse("createTicket", 400, { code: "oops", message: "x" })?.map((i) => i.path)).toEqual(["/code"]);
    expect(validateResponse("listGames", 404, { code: "not_found", message: "x" })?.[0]?.message).toMatch(/not documented/);
    const rateLimit = { "ratelimit-limit": "1200", "ratelimit-remaining": "1199", "ratelimit-reset": "30" };
    expect(validateResponse("getAttachment", 307, undefined, { location: "https://s3/x", "x-request-id": "r1", ...rateLimit })).toBeNull();
    expect(validateResponse("getAttachment", 307, undefined, new Headers({ "x-request-id": "r1", ...rateLimit }))).toEqual([{ path: "/header/location", message: "is required" }]);
  });
});

describe("validateOperation middleware", () => {
  let server: ReturnType<Koa["listen"]>;
  let base: string;
  const seen: ValidatedRequest[] = [];

  beforeAll(async () => {
    const app = new Koa();
    // Stands in for the gateway's error middleware, with the same error-to-HTTP mapping.
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (error) {
        const { status, body } = toHttpError(error);
        ctx.status = status;
        ctx.body = body;
      }
    });
    // Stands in for the gateway's body parser.
    app.use(async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      if (chunks.length > 0) (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      await next();
    });
    const router = new Router();
    const handler = (ctx: Koa.Context) => {
      seen.push(ctx.state.validated as ValidatedRequest);
      ctx.body = { seenLimit: ctx.query.limit ?? null };
    };
    router.get("/tickets", validateOperation("listTickets"), handler);
    router.post("/tickets/:ticketId/actions", validateOperation("performTicketActions"), handler);
    app.use(router.routes());
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  it("answers 400 with the VALIDATION_ERROR body and does not call the handler", async () => {
    const before = seen.length;
    const response = await fetch(`${base}/tickets?limit=0`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toEqual({
      code: "invalid_argument",
      message: "Request validation failed",
      details: { type: "VALIDATION_ERROR", issues: [{ path: "/query/limit", message: "must be >= 1" }] },
    });
    expect(validateResponse("listTickets", 400, body)).toBeNull();
    expect(seen.length).toBe(before);
  });

  it("validates path parameters and the JSON body", async () => {
    const response = await fetch(`${base}/tickets/not-a-uuid/actions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ actions: [{ type: "fly" }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { details: { issues: { path: string }[] } };
    expect(body.details.issues.map((issue) => issue.path)).toEqual(["/path/ticketId", "/actions/0/type"]);
  });

  it("hands coerced values to the handler and leaves ctx.query as strings", async () => {
    const response = await fetch(`${base}/tickets?limit=5`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ seenLimit: "5" });
    expect(seen.at(-1)?.query).toEqual({ limit: 5, order: "asc" });
  });

  it("throws when registered for an unknown operation", () => {
    expect(() => validateOperation("listTicketz")).toThrow(/unknown operationId/);
  });
});
