// Idempotency-Key through the whole stack: the gateway fingerprints the request and hands the
// key to the service, which records the answer in the same transaction as the work. What a
// client sees: one piece of work per key, the same status and body again (with
// Idempotent-Replayed: true), 409 while the first request runs, 422 for another request.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

function tenant(name: string) {
  return {
    company: { name, primaryLanguage: "en", allowImmediateDeletion: true },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${name.toLowerCase()}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
    tags: [{ name: "bug", game: null }],
    fields: [{ key: "level", name: "Level", type: "number", game: null }],
  };
}

interface TicketDto {
  id: string;
  servicePlayerId: string;
}

describe("Idempotency-Key through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;

  const keyOf = (t: TenantResult) => t.apiKeys.main!;
  const ticketBody = (t: TenantResult, playerId: string, message = `My ship vanished ${playerId}`) => ({
    gameId: t.games.galaxy!.id,
    message,
    language: "en",
    channels: ["email"],
    metadata: { player: { id: playerId, email: `${playerId}@example.com` } },
  });
  const send = (t: TenantResult, method: string, path: string, idempotencyKey: string | undefined, json?: unknown) =>
    stack.request(path, { method, key: keyOf(t), json, headers: idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey } });
  const ticketsOf = async (t: TenantResult, playerId: string): Promise<TicketDto[]> => {
    const response = await stack.request(`/tickets?playerId=${encodeURIComponent(playerId)}`, { key: keyOf(t) });
    expect(response.status).toBe(200);
    return (response.body as { tickets: TicketDto[] }).tickets;
  };
  const expectReplay = (response: StackResponse, first: StackResponse) => {
    expect(response.status, response.text).toBe(first.status);
    expect(response.body).toEqual(first.body);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
  };

  beforeAll(async () => {
    // 50 concurrent writes on one gateway: above its default admission of writes (32 at once).
    stack = await startStack({ gateway: { MAX_WRITES_IN_PROGRESS: 64 } });
    a = await stack.applyTenant(tenant("Alpha"));
    b = await stack.applyTenant(tenant("Beta"));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("creates one ticket for 50 concurrent POST /tickets with one key: the same body each time, or 409 while the first runs", async () => {
    const playerId = `player-${randomUUID()}`;
    const key = randomUUID();
    const body = ticketBody(a, playerId);
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(a, "POST", "/tickets", key, body)));

    const created = answers.filter((r) => r.status === 200);
    const inUse = answers.filter((r) => r.status === 409);
    expect(created.length + inUse.length, answers.map((r) => `${r.status} ${r.text}`).join("\n")).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of inUse) expect((r.body as { code: string }).code).toBe("idempotency_key_in_use");
    // Exactly one answer did the work; every other 200 is its replay.
    const first = created.filter((r) => r.headers.get("idempotent-replayed") === null);
    expect(first).toHaveLength(1);
    for (const r of created) expect(r.body).toEqual(first[0]!.body);

    expectReplay(await send(a, "POST", "/tickets", key, body), first[0]!);
    const tickets = await ticketsOf(a, playerId);
    expect(tickets.map((t) => t.id)).toEqual([(first[0]!.body as { ticketId: string }).ticketId]);
  });

  it("refuses the key with a different request (422), and keeps keys of different companies apart", async () => {
    const playerId = `player-${randomUUID()}`;
    const key = randomUUID();
    const first = await send(a, "POST", "/tickets", key, ticketBody(a, playerId));
    expect(first.status, first.text).toBe(200);

    const other = await send(a, "POST", "/tickets", key, ticketBody(a, playerId, "Something else entirely happened to my ship"));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: "idempotency_key_reused" });
    // Property order is not part of the request.
    const reordered = Object.fromEntries(Object.entries(ticketBody(a, playerId)).reverse());
    expectReplay(await send(a, "POST", "/tickets", key, reordered), first);
    expect(await ticketsOf(a, playerId)).toHaveLength(1);

    const elsewhere = await send(b, "POST", "/tickets", key, ticketBody(b, playerId));
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.headers.get("idempotent-replayed")).toBeNull();
    expect(elsewhere.body).not.toEqual(first.body);
    expect(await ticketsOf(b, playerId)).toHaveLength(1);
  });

  it("refuses an empty key and one over 255 characters with 400, and takes one of 255", async () => {
    const path = "/announcements";
    for (const bad of ["", "k".repeat(256)]) {
      const response = await send(a, "DELETE", path, bad);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/header/Idempotency-Key" }] } });
    }
    expect((await send(a, "DELETE", path, "k".repeat(255))).status).toBe(200);
  });

  it("replays POST /tickets/{ticketId}/actions without adding a second message", async () => {
    const created = await send(a, "POST", "/tickets", undefined, ticketBody(a, `player-${randomUUID()}`));
    const { ticketId } = created.body as { ticketId: string };
    const key = randomUUID();
    const actions = { actions: [{ type: "sendMessage", message: `Looking into it ${key}` }, { type: "addTags", tagNames: ["bug"] }] };
    const first = await send(a, "POST", `/tickets/${ticketId}/actions`, key, actions);
    expect(first.status, first.text).toBe(200);
    expectReplay(await send(a, "POST", `/tickets/${ticketId}/actions`, key, actions), first);

    const events = (await stack.request(`/tickets/${ticketId}/events`, { key: keyOf(a) })).body as { events: { type: string; message?: string }[] };
    expect(events.events.filter((e) => e.type === "AGENT_MESSAGE")).toHaveLength(1);
    // The same body on another ticket is another request.
    const otherTicket = (await send(a, "POST", "/tickets", undefined, ticketBody(a, `player-${randomUUID()}`))).body as { ticketId: string };
    expect((await send(a, "POST", `/tickets/${otherTicket.ticketId}/actions`, key, actions)).status).toBe(422);
  });

  it("replays POST /attachments with the same upload instruction", async () => {
    const key = randomUUID();
    const file = { gameId: a.games.galaxy!.id, fileName: "crash.png", fileType: "image/png", fileSize: 4096 };
    const first = await send(a, "POST", "/attachments", key, file);
    expect(first.status, first.text).toBe(200);
    expectReplay(await send(a, "POST", "/attachments", key, file), first);
  });

  it("replays DELETE /announcements and DELETE /announcements/{gameId}; the key of one is refused for the other", async () => {
    const key = randomUUID();
    const first = await send(a, "DELETE", "/announcements", key);
    expect(first.status, first.text).toBe(200);
    expectReplay(await send(a, "DELETE", "/announcements", key), first);
    expect((await send(a, "DELETE", `/announcements/${a.games.galaxy!.id}`, key)).status).toBe(422);

    const gameKey = randomUUID();
    const game = await send(a, "DELETE", `/announcements/${a.games.galaxy!.id}`, gameKey);
    expect(game.status, game.text).toBe(200);
    expectReplay(await send(a, "DELETE", `/announcements/${a.games.galaxy!.id}`, gameKey), game);
  });

  it("replays POST /player/schedule-deletion and DELETE /player", async () => {
    const playerId = `player-${randomUUID()}`;
    await send(a, "POST", "/tickets", undefined, ticketBody(a, playerId));
    const [ticket] = await ticketsOf(a, playerId);
    const request = { servicePlayerId: ticket!.servicePlayerId };

    const scheduleKey = randomUUID();
    const scheduled = await send(a, "POST", "/player/schedule-deletion", scheduleKey, request);
    expect(scheduled.status, scheduled.text).toBe(200);
    expectReplay(await send(a, "POST", "/player/schedule-deletion", scheduleKey, request), scheduled);

    const deleteKey = randomUUID();
    const deleted = await send(a, "DELETE", "/player", deleteKey, request);
    expect(deleted.status, deleted.text).toBe(200);
    expect(await ticketsOf(a, playerId)).toEqual([]);
    expectReplay(await send(a, "DELETE", "/player", deleteKey, request), deleted);
  });
});
