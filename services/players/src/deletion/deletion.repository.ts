// Queries of player deletion: schedules, erasures, and the deletion of a player's own rows.
// Free functions taking the executor; no rules here.
import { sql, type Kysely } from "@support/db";
import type { Selectable } from "kysely";
import type { PlayersDatabase } from "../database.ts";
import type { Player } from "../players/player.ts";
import type { PagePosition } from "../players/paging.ts";
import type { DeletionSchedule, Erasure, ErasureStep, ErasureTrigger, Requester, StepRecord } from "./deletion.ts";
import type { DeletionScheduleTable, ErasureTable } from "./deletion.table.ts";

type Db = Kysely<PlayersDatabase>;

function requester(type: "api_key" | "operator" | "user", id: string | null): Requester {
  if (type === "user" && id !== null) return { type, id };
  return type === "api_key" ? { type, id } : { type: "operator", id: null };
}

function toSchedule(row: Selectable<DeletionScheduleTable>): DeletionSchedule {
  return {
    id: row.id,
    playerId: row.player_id,
    companyId: row.company_id,
    gameId: row.game_id,
    requestedBy: requester(row.requested_by_type, row.requested_by_id),
    createdAt: row.created_at,
    dueAt: row.due_at,
  };
}

function toErasure(row: Selectable<ErasureTable>): Erasure {
  return {
    id: row.id,
    companyId: row.company_id,
    playerId: row.player_id,
    gameId: row.game_id,
    trigger: row.trigger,
    requestedBy: requester(row.requested_by_type, row.requested_by_id),
    requestedAt: row.requested_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    steps: row.steps,
    attempts: row.attempts,
    lastError: row.last_error,
  };
}

/** Inserts the player's schedule unless it has one; nothing when it already had one. */
export async function insertScheduleIfAbsent(
  db: Db,
  values: { player: Player; requestedBy: Requester; dueAt: Date },
): Promise<DeletionSchedule | undefined> {
  const row = await db
    .insertInto("deletion_schedules")
    .values({
      player_id: values.player.id,
      company_id: values.player.companyId,
      game_id: values.player.gameId,
      requested_by_type: values.requestedBy.type,
      requested_by_id: values.requestedBy.id,
      due_at: values.dueAt,
    })
    .onConflict((oc) => oc.column("player_id").doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toSchedule(row);
}

export async function findScheduleOfPlayer(db: Db, companyId: string, playerId: string): Promise<DeletionSchedule | undefined> {
  const row = await db
    .selectFrom("deletion_schedules")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("player_id", "=", playerId)
    .executeTakeFirst();
  return row && toSchedule(row);
}

/** The schedule, locked until the transaction ends (the due check and a cancellation serialise). */
export async function lockSchedule(db: Db, scheduleId: string): Promise<DeletionSchedule | undefined> {
  const row = await db.selectFrom("deletion_schedules").selectAll().where("id", "=", scheduleId).forUpdate().executeTakeFirst();
  return row && toSchedule(row);
}

/** Deletes the player's pending schedule; returns it, or nothing when there was none. */
export async function deleteScheduleOfPlayer(db: Db, playerId: string): Promise<DeletionSchedule | undefined> {
  const row = await db.deleteFrom("deletion_schedules").where("player_id", "=", playerId).returningAll().executeTakeFirst();
  return row && toSchedule(row);
}

/** Pending schedules, soonest due first; `companyId` narrows to one company. */
export async function listSchedules(db: Db, options: { companyId?: string | undefined; limit: number }): Promise<DeletionSchedule[]> {
  let query = db.selectFrom("deletion_schedules").selectAll();
  if (options.companyId !== undefined) query = query.where("company_id", "=", options.companyId);
  const rows = await query.orderBy("due_at").orderBy("id").limit(options.limit).execute();
  return rows.map(toSchedule);
}

/**
 * Pending schedules of a company with their players, soonest due first; `gameId` narrows to one
 * game, `after` continues a page. The player columns come prefixed with `player_`.
 */
export async function listSchedulesWithPlayers(
  db: Db,
  options: { companyId: string; gameId: string | undefined; after: PagePosition | undefined; limit: number },
) {
  let query = db
    .selectFrom("deletion_schedules as s")
    .innerJoin("players as p", "p.id", "s.player_id")
    .selectAll("s")
    .select([
      "p.external_id as player_external_id", "p.email as player_email", "p.name as player_name", "p.tier as player_tier",
      "p.blocked as player_blocked", "p.blocked_at as player_blocked_at", "p.created_at as player_created_at", "p.updated_at as player_updated_at",
    ])
    .where("s.company_id", "=", options.companyId);
  if (options.gameId !== undefined) query = query.where("s.game_id", "=", options.gameId);
  const { after } = options;
  if (after) query = query.where(sql<boolean>`(s.due_at, s.id) > (${after.at}::timestamptz, ${after.id}::uuid)`);
  const rows = await query.orderBy("s.due_at").orderBy("s.id").limit(options.limit).execute();
  return rows.map((row) => ({
    schedule: toSchedule(row),
    player: {
      id: row.player_id, companyId: row.company_id, gameId: row.game_id, externalId: row.player_external_id, name: row.player_name, email: row.player_email,
      tier: row.player_tier as Player["tier"], blocked: row.player_blocked, blockedAt: row.player_blocked_at, createdAt: row.player_created_at, updatedAt: row.player_updated_at,
    } satisfies Player,
  }));
}

/** Schedules due at `now`, soonest first (ids only: each is locked and re-checked when started). */
export async function listDueScheduleIds(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db.selectFrom("deletion_schedules").select("id").where("due_at", "<=", now).orderBy("due_at").limit(limit).execute();
  return rows.map((row) => row.id);
}

/** Inserts the player's erasure unless one exists; nothing when it already existed. */
export async function insertErasureIfAbsent(
  db: Db,
  values: { player: { id: string; companyId: string; gameId: string }; trigger: ErasureTrigger; requestedBy: Requester; requestedAt: Date },
): Promise<Erasure | undefined> {
  const row = await db
    .insertInto("erasures")
    .values({
      company_id: values.player.companyId,
      player_id: values.player.id,
      game_id: values.player.gameId,
      trigger: values.trigger,
      requested_by_type: values.requestedBy.type,
      requested_by_id: values.requestedBy.id,
      requested_at: values.requestedAt,
    })
    .onConflict((oc) => oc.column("player_id").doNothing())
    .returningAll()
    .executeTakeFirst();
  return row && toErasure(row);
}

export async function findErasure(db: Db, erasureId: string): Promise<Erasure | undefined> {
  const row = await db.selectFrom("erasures").selectAll().where("id", "=", erasureId).executeTakeFirst();
  return row && toErasure(row);
}

export async function findErasureOfPlayer(db: Db, companyId: string, playerId: string): Promise<Erasure | undefined> {
  const row = await db
    .selectFrom("erasures")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("player_id", "=", playerId)
    .executeTakeFirst();
  return row && toErasure(row);
}

/** Erasures that have not completed, oldest first. */
export async function listRunningErasures(db: Db, limit: number): Promise<Erasure[]> {
  const rows = await db.selectFrom("erasures").selectAll().where("completed_at", "is", null).orderBy("started_at").limit(limit).execute();
  return rows.map(toErasure);
}

export async function recordAttempt(db: Db, erasureId: string): Promise<void> {
  await db
    .updateTable("erasures")
    .set({ attempts: sql<number>`attempts + 1` })
    .where("id", "=", erasureId)
    .execute();
}

export async function recordFailure(db: Db, erasureId: string, errorCode: string): Promise<void> {
  await db.updateTable("erasures").set({ last_error: errorCode }).where("id", "=", erasureId).execute();
}

/** Records one completed step (merged into `steps`); returns the erasure as it is now. */
export async function recordStep(db: Db, erasureId: string, step: ErasureStep, record: StepRecord): Promise<Erasure> {
  const row = await db
    .updateTable("erasures")
    .set({ steps: sql`steps || ${JSON.stringify({ [step]: record })}::jsonb` as never })
    .where("id", "=", erasureId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toErasure(row);
}

export async function markCompleted(db: Db, erasureId: string, at: Date): Promise<void> {
  await db.updateTable("erasures").set({ completed_at: at, last_error: null }).where("id", "=", erasureId).execute();
}

/** The player row, locked until the transaction ends; nothing when it is gone. */
export async function lockPlayer(db: Db, companyId: string, playerId: string): Promise<{ id: string; externalId: string | null; emailNormalized: string | null; gameId: string } | undefined> {
  const row = await db
    .selectFrom("players")
    .select(["id", "external_id", "email_normalized", "game_id"])
    .where("company_id", "=", companyId)
    .where("id", "=", playerId)
    .forUpdate()
    .executeTakeFirst();
  return row && { id: row.id, externalId: row.external_id, emailNormalized: row.email_normalized, gameId: row.game_id };
}

/** The player's external id, read for the media step (attachments uploaded with that playerId). */
export async function findExternalId(db: Db, companyId: string, playerId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom("players")
    .select("external_id")
    .where("company_id", "=", companyId)
    .where("id", "=", playerId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.external_id;
}

/**
 * Deletes the player's web support sessions (they hold the player's name and email in their
 * metadata): those naming its external id, or for a player without one, its email. Returns
 * their ids (players.session.ended makes every gateway forget them).
 */
export async function deletePlayerSessions(
  db: Db,
  player: { gameId: string; externalId: string | null; emailNormalized: string | null },
): Promise<string[]> {
  let query = db.deleteFrom("support_sessions").where("game_id", "=", player.gameId);
  if (player.externalId !== null) query = query.where("player_external_id", "=", player.externalId);
  else if (player.emailNormalized !== null) query = query.where("player_external_id", "is", null).where("player_email_normalized", "=", player.emailNormalized);
  else return [];
  const rows = await query.returning("id").execute();
  return rows.map((row) => row.id);
}

/** Deletes the player record (its schedule goes with it: on delete cascade). */
export async function deletePlayerRow(db: Db, playerId: string): Promise<number> {
  const result = await db.deleteFrom("players").where("id", "=", playerId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Scheduled deletions not done yet (waiting schedules and scheduled erasures still running),
 * and how many of them are more than `overdueAfterMs` late: a schedule past its due time, or an
 * erasure started (when its schedule was due) that long ago and not completed.
 */
export async function countPendingDeletions(db: Db, now: Date, overdueAfterMs: number): Promise<{ pending: number; overdue: number }> {
  const lateBefore = new Date(now.getTime() - overdueAfterMs);
  const { rows } = await sql<{ pending: number; overdue: number }>`
    select
      (select count(*) from deletion_schedules)
        + (select count(*) from erasures where trigger = 'scheduled' and completed_at is null) as pending,
      (select count(*) from deletion_schedules where due_at < ${lateBefore})
        + (select count(*) from erasures where trigger = 'scheduled' and completed_at is null and started_at < ${lateBefore}) as overdue`.execute(db);
  return rows[0] ?? { pending: 0, overdue: 0 };
}
