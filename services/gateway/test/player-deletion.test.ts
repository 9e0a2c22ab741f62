// Player deletion (scheduled and immediate) through the whole stack: the players service drives
// the erasure over Connect (tickets, media, then its own record), and what is left is checked
// through every service's REST surface and in the storage itself (ListObjectsV2). Scheduled
// deletions run PLAYER_DELETION_DELAY_SECONDS later (6 s here: long enough for an operator
// command between scheduling and the due time, even on a loaded machine), carried by NATS: they
// survive a restart of the players service and can be cancelled by an operator.
import { randomBytes, randomUUID } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createDb, sql, type Kysely } from "@support/db";
import { TicketsService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { createS3Client } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack, type TenantResult } from "./stack.ts";

const DELAY_SECONDS = 6;

let tenantCounter = 0;
function tenantFile(allowImmediateDeletion: boolean) {
  tenantCounter += 1;
  const n = `${process.pid}-${tenantCounter}`;
  return {
    company: { name: `Deletion Studio ${n}`, primaryLanguage: "en", allowImmediateDeletion },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${n}`, languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
    tags: [{ name: "bug", game: null }],
    fields: [{ key: "level", name: "Level", type: "number", game: null }],
  };
}

interface SeededPlayer {
  externalId: string;
  servicePlayerId: string;
  ticketId: string;
  /** The attachment of the ticket, and one uploaded with the player's id but never used. */
  attachmentIds: string[];
  objectKeys: string[];
}

interface ErasureRow {
  id: string;
  player_id: string;
  trigger: string;
  requested_by_type: string;
  requested_by_id: string | null;
  completed_at: Date | null;
  steps: Record<string, { status: string; counts: Record<string, number> }>;
}

describe("player deletion through the real stack", () => {
  let stack: Stack;
  let allowed: TenantResult;
  let denied: TenantResult;
  let players: Kysely<unknown>;
  let tickets: ReturnType<typeof createServiceClient<typeof TicketsService>>;
  let s3: ReturnType<typeof createS3Client>;

  beforeAll(async () => {
    stack = await startStack({ env: { PLAYER_DELETION_DELAY_SECONDS: String(DELAY_SECONDS) } });
    allowed = await stack.applyTenant(tenantFile(true));
    denied = await stack.applyTenant(tenantFile(false));
    players = createDb({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 2 });
    tickets = createServiceClient(TicketsService, stack.serviceUrls.tickets);
    s3 = createS3Client(stack.infra.s3);
  });
  afterAll(async () => {
    s3?.destroy();
    await players?.destroy();
    await stack?.stop();
  });

  const keyOf = (tenant: TenantResult) => tenant.apiKeys.main!;

  async function upload(tenant: TenantResult, externalId: string): Promise<{ attachmentId: string; objectKey: string }> {
    const bytes = randomBytes(256);
    const response = await stack.request("/attachments", {
      method: "POST",
      key: keyOf(tenant),
      json: { gameId: tenant.games.galaxy!.id, fileName: "shot.png", fileType: "image/png", fileSize: bytes.length, playerId: externalId },
    });
    expect(response.status).toBe(200);
    const instruction = response.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
    const put = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes });
    expect(put.status).toBe(200);
    return { attachmentId: instruction.attachmentId, objectKey: decodeURIComponent(new URL(instruction.uploadUrl).pathname).replace(/^\/[^/]+\//, "") };
  }

  /** A player with a ticket (tags, fields, an agent reply), two breadcrumbs and two attachments. */
  async function seedPlayer(tenant: TenantResult): Promise<SeededPlayer> {
    const externalId = `player-${randomUUID()}`;
    const used = await upload(tenant, externalId);
    const unused = await upload(tenant, externalId);
    const created = await stack.request("/tickets", {
      method: "POST",
      key: keyOf(tenant),
      json: {
        gameId: tenant.games.galaxy!.id,
        message: `Lost my ship ${externalId}`,
        attachments: [used.attachmentId],
        language: "en",
        channels: ["email"],
        metadata: { player: { id: externalId, name: "Pat Player", email: `${externalId}@example.com` }, tags: ["bug"], fields: { level: 7 } },
      },
    });
    expect(created.status).toBe(200);
    const { ticketId } = created.body as { ticketId: string };
    const reply = await stack.request(`/tickets/${ticketId}/actions`, {
      method: "POST", key: keyOf(tenant), json: { actions: [{ type: "sendMessage", message: "We are on it" }] },
    });
    expect(reply.status).toBe(200);
    // Breadcrumbs come from the player side, not from this REST API.
    await tickets.addTicketBreadcrumbs({
      companyId: tenant.companyId,
      ticketId,
      breadcrumbs: ["opened map", "crashed"].map((message) => ({ message, clientOccurredAt: timestampFromDate(new Date()) })),
    });
    const listed = await stack.request(`/tickets?playerId=${encodeURIComponent(externalId)}`, { key: keyOf(tenant) });
    const servicePlayerId = (listed.body as { tickets: { servicePlayerId: string }[] }).tickets[0]!.servicePlayerId;
    return { externalId, servicePlayerId, ticketId, attachmentIds: [used.attachmentId, unused.attachmentId], objectKeys: [used.objectKey, unused.objectKey] };
  }

  async function storedKeys(tenant: TenantResult): Promise<string[]> {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.infra.s3.bucket, Prefix: `${tenant.companyId}/` }));
    return (listed.Contents ?? []).map((object) => object.Key!);
  }

  async function ticketsOf(tenant: TenantResult, player: SeededPlayer): Promise<unknown[]> {
    const response = await stack.request(`/tickets?playerId=${encodeURIComponent(player.externalId)}`, { key: keyOf(tenant) });
    expect(response.status).toBe(200);
    return (response.body as { tickets: unknown[] }).tickets;
  }

  async function playerRow(servicePlayerId: string) {
    const { rows } = await sql<{ id: string }>`select id from players.players where id = ${servicePlayerId}`.execute(players);
    return rows[0];
  }

  async function erasureOf(servicePlayerId: string): Promise<ErasureRow | undefined> {
    const { rows } = await sql<ErasureRow>`select * from players.erasures where player_id = ${servicePlayerId}`.execute(players);
    return rows[0];
  }

  /** Everything of the player is still there (nothing was erased). */
  async function expectIntact(tenant: TenantResult, player: SeededPlayer): Promise<void> {
    expect(await ticketsOf(tenant, player)).toHaveLength(1);
    expect((await stack.request(`/tickets/${player.ticketId}/events`, { key: keyOf(tenant) })).status).toBe(200);
    for (const id of player.attachmentIds) expect((await stack.request(`/attachments/${id}`, { key: keyOf(tenant) })).status).toBe(307);
    const keys = await storedKeys(tenant);
    for (const key of player.objectKeys) expect(keys).toContain(key);
    expect(await playerRow(player.servicePlayerId)).toBeDefined();
  }

  /** Nothing of the player is left, in any service, nor in the storage. */
  async function expectErased(tenant: TenantResult, player: SeededPlayer): Promise<void> {
    const key = keyOf(tenant);
    expect(await ticketsOf(tenant, player)).toEqual([]);
    expect((await stack.request(`/tickets/${player.ticketId}/events`, { key })).status).toBe(404);
    expect((await stack.request(`/tickets/${player.ticketId}/breadcrumbs`, { key })).status).toBe(404);
    for (const id of player.attachmentIds) expect((await stack.request(`/attachments/${id}`, { key })).status).toBe(404);
    const keys = await storedKeys(tenant);
    for (const objectKey of player.objectKeys) expect(keys).not.toContain(objectKey);
    expect(await playerRow(player.servicePlayerId)).toBeUndefined();
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from tickets.ticket_breadcrumbs b
      where not exists (select 1 from tickets.tickets t where t.id = b.ticket_id)`.execute(players);
    expect(rows[0]!.n).toBe(0);
  }

  const schedule = (tenant: TenantResult, servicePlayerId: string) =>
    stack.request("/player/schedule-deletion", { method: "POST", key: keyOf(tenant), json: { servicePlayerId } });
  const deleteNow = (tenant: TenantResult, servicePlayerId: string) =>
    stack.request("/player", { method: "DELETE", key: keyOf(tenant), json: { servicePlayerId } });

  async function apiKeyIdOf(tenant: TenantResult): Promise<string> {
    const { rows } = await sql<{ id: string }>`select id from content.api_keys where company_id = ${tenant.companyId}`.execute(players);
    return rows[0]!.id;
  }

  describe("DELETE /player", () => {
    it("erases the player's record, tickets, events, breadcrumbs and attachments (objects too) before answering 200", async () => {
      const player = await seedPlayer(allowed);
      const bystander = await seedPlayer(allowed);
      await expectIntact(allowed, player);

      const response = await deleteNow(allowed, player.servicePlayerId);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true });
      await expectErased(allowed, player);
      await expectIntact(allowed, bystander);

      // The audit record: who, when, which player, how many records per service; no personal data.
      const erasure = (await erasureOf(player.servicePlayerId))!;
      expect(erasure).toMatchObject({ trigger: "immediate", requested_by_type: "api_key", requested_by_id: await apiKeyIdOf(allowed) });
      expect(erasure.completed_at).toBeInstanceOf(Date);
      expect(erasure.steps.tickets!.counts).toMatchObject({ tickets: 1, breadcrumbs: 2, tags: 1, fieldValues: 1 });
      expect(erasure.steps.tickets!.counts.events).toBeGreaterThanOrEqual(2);
      expect(erasure.steps.media!.counts).toEqual({ attachments: 2 });
      expect(erasure.steps.players!.counts).toMatchObject({ players: 1 });
      const text = JSON.stringify(erasure);
      for (const personal of [player.externalId, "Pat Player", "@example.com", "Lost my ship"]) expect(text).not.toContain(personal);

      // Asking again is answered like the first time; the player itself is unknown now.
      expect((await deleteNow(allowed, player.servicePlayerId)).status).toBe(200);
      expect((await schedule(allowed, player.servicePlayerId)).status).toBe(404);
    });

    it("answers 403 permission_denied to a company without allowImmediateDeletion, and deletes nothing", async () => {
      const player = await seedPlayer(denied);
      const response = await deleteNow(denied, player.servicePlayerId);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: "permission_denied" });
      await expectIntact(denied, player);
    });

    it("answers 404 for another company's player or an unknown id, and 400 for a malformed one", async () => {
      const foreign = await seedPlayer(denied);
      expect((await deleteNow(allowed, foreign.servicePlayerId)).status).toBe(404);
      expect((await deleteNow(allowed, randomUUID())).status).toBe(404);
      expect((await deleteNow(allowed, "not-a-uuid")).status).toBe(400);
      await expectIntact(denied, foreign);
    });

    it("resumes an erasure interrupted after the tickets step, and completes it", async () => {
      const player = await seedPlayer(allowed);
      await stack.stopService("media");
      try {
        const response = await deleteNow(allowed, player.servicePlayerId);
        expect(response.status).toBe(503);
        // The tickets step completed and was recorded; the media step and the record wait.
        expect(await ticketsOf(allowed, player)).toEqual([]);
        const interrupted = (await erasureOf(player.servicePlayerId))!;
        expect(interrupted.completed_at).toBeNull();
        expect(Object.keys(interrupted.steps)).toEqual(["tickets"]);
        expect(await playerRow(player.servicePlayerId)).toBeDefined();
      } finally {
        await stack.startService("media");
      }
      // Nobody asks again: the erasure's NATS message is redelivered until it completes.
      await eventually(async () => (await erasureOf(player.servicePlayerId))?.completed_at instanceof Date, 30_000);
      await expectErased(allowed, player);
      const erasure = (await erasureOf(player.servicePlayerId))!;
      // The tickets step ran once (a second run would have counted 0 tickets).
      expect(erasure.steps.tickets!.counts.tickets).toBe(1);
      expect(erasure.steps.media!.counts).toEqual({ attachments: 2 });
    });
  });

  describe("POST /player/schedule-deletion", () => {
    it("erases everything about PLAYER_DELETION_DELAY_SECONDS later, not before", async () => {
      const player = await seedPlayer(denied); // scheduling needs no allowance
      const scheduledAt = Date.now();
      const response = await schedule(denied, player.servicePlayerId);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true });

      await new Promise((resolve) => setTimeout(resolve, 1000));
      await expectIntact(denied, player);
      await eventually(async () => (await playerRow(player.servicePlayerId)) === undefined, 20_000);
      expect(Date.now() - scheduledAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 100);
      await eventually(async () => (await erasureOf(player.servicePlayerId))?.completed_at instanceof Date);
      await expectErased(denied, player);
      expect(await erasureOf(player.servicePlayerId)).toMatchObject({ trigger: "scheduled", requested_by_type: "api_key", requested_by_id: await apiKeyIdOf(denied) });
    });

    it("keeps one schedule, with its first due time, when asked twice", async () => {
      const player = await seedPlayer(allowed);
      // Read from the table, not with the admin command: starting that child process can take
      // longer than the whole delay on a busy machine, and the erasure would then run (and the
      // second request find no player) before the second request is sent.
      const schedulesOf = async () =>
        (await sql<{ id: string; due_at: Date }>`select id, due_at from players.deletion_schedules where player_id = ${player.servicePlayerId}`.execute(players)).rows;
      expect((await schedule(allowed, player.servicePlayerId)).status).toBe(200);
      const first = await schedulesOf();
      expect(first).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await schedule(allowed, player.servicePlayerId)).status).toBe(200);
      expect(await schedulesOf()).toEqual(first);
      // It runs once.
      await eventually(async () => (await erasureOf(player.servicePlayerId))?.completed_at instanceof Date, 20_000);
      await expectErased(allowed, player);
    });

    it("does not erase a player whose schedule an operator cancelled", async () => {
      const player = await seedPlayer(allowed);
      expect((await schedule(allowed, player.servicePlayerId)).status).toBe(200);
      const cancelled = await stack.admin<{ servicePlayerId: string; cancelled: boolean }>(["players", "cancel-deletion", player.servicePlayerId]);
      expect(cancelled).toMatchObject({ servicePlayerId: player.servicePlayerId, cancelled: true });
      const listed = await stack.admin<{ schedules: { servicePlayerId: string }[] }>(["players", "schedules"]);
      expect(listed.schedules.map((s) => s.servicePlayerId)).not.toContain(player.servicePlayerId);
      await expect(stack.admin(["players", "cancel-deletion", player.servicePlayerId])).rejects.toThrow(/exited 1.*not_found/s);

      await new Promise((resolve) => setTimeout(resolve, (DELAY_SECONDS + 3) * 1000));
      await expectIntact(allowed, player);
      expect(await erasureOf(player.servicePlayerId)).toBeUndefined();
    });

    it("still runs when the players service restarts before it is due", async () => {
      const player = await seedPlayer(allowed);
      expect((await schedule(allowed, player.servicePlayerId)).status).toBe(200);
      await stack.stopService("players");
      await stack.startService("players");
      await eventually(async () => (await erasureOf(player.servicePlayerId))?.completed_at instanceof Date, 40_000);
      await expectErased(allowed, player);
    }, 60_000); // a service restart on a loaded 2-core machine can take several seconds

    it("answers 404 for another company's player or an unknown id", async () => {
      const foreign = await seedPlayer(denied);
      expect((await schedule(allowed, foreign.servicePlayerId)).status).toBe(404);
      expect((await schedule(allowed, randomUUID())).status).toBe(404);
      expect((await schedule(allowed, "not-a-uuid")).status).toBe(400);
      const listed = await stack.admin<{ schedules: { servicePlayerId: string }[] }>(["players", "schedules"]);
      expect(listed.schedules.map((s) => s.servicePlayerId)).not.toContain(foreign.servicePlayerId);
    });
  });
});
