// Player deletion use cases (scheduled and immediate). Scheduling writes the schedule and its
// players.deletion.scheduled event in one transaction; the deletion consumer holds that message
// back until it is due (NATS carries the delay) and then starts the erasure. Starting an
// erasure writes its row and players.deletion.started in one transaction, so an erasure that
// stops part way (a crash, a service down) is resumed by that message's redelivery. Whoever
// runs an erasure holds a per-erasure advisory lock: with several replicas one runs it at a
// time, and each completed step is recorded before the next begins.
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "@support/db";
import { AppError, isAppError, isUuid, notFound, permissionDenied } from "@support/errors";
import type { Logger } from "@support/logging";
import { sql } from "kysely";
import type { PlayersDatabase } from "../database.ts";
import { writeEvents, type NewEvent } from "@support/bus";
import { newEvent } from "@support/events";
import { sessionEventTypes, sessionsEndedData } from "../sessions/session.ts";
import { findPlayerById } from "../players/player.repository.ts";
import { auditedPlayer, recordAudit } from "../players/player.audit.ts";
import { decodeCursor, encodeCursor, pageSize } from "../players/paging.ts";
import type { Player } from "../players/player.ts";
import {
  cancelledData, deletedData, deletionEventTypes, dueAt, pendingSteps, scheduledData, startedData, stepDone,
  type Canceller, type DeletionSchedule, type Erasure, type ErasureStep, type Requester,
} from "./deletion.ts";
import {
  deletePlayerRow, deletePlayerSessions, deleteScheduleOfPlayer, findErasure, findErasureOfPlayer, findExternalId,
  findScheduleOfPlayer, insertErasureIfAbsent, insertScheduleIfAbsent, listDueScheduleIds, listRunningErasures,
  listSchedules as listScheduleRows, listSchedulesWithPlayers, lockPlayer, lockSchedule, markCompleted, recordAttempt, recordFailure, recordStep,
} from "./deletion.repository.ts";
import type { ErasureServices } from "./erasure-services.ts";

type Db = Kysely<PlayersDatabase>;

export interface DeletionContext {
  db: Db;
  services: ErasureServices;
  logger: Logger;
  /** PLAYER_DELETION_DELAY_SECONDS: how long after scheduling the erasure runs. */
  delaySeconds: number;
  /** How long DeletePlayer waits for an erasure another runner holds before answering 503. */
  lockWaitMs: number;
  /**
   * Publishes the outbox now (the relay's flush). DeletePlayer calls it before it answers, so the
   * erased player's players.session.ended is on NATS when DELETE /player says 200: every
   * gateway stops accepting the sessions at once instead of a relay round later.
   */
  publishNow?: () => Promise<unknown>;
}

const playerNotFound = () => notFound("player not found");

/** One schedule per player; scheduling again keeps the first one and its due time. */
export async function scheduleDeletion(
  ctx: Pick<DeletionContext, "db" | "delaySeconds">,
  input: { companyId: string; playerId: string; requestedBy: Requester },
  now: Date = new Date(),
): Promise<{ schedule: DeletionSchedule; created: boolean }> {
  if (!isUuid(input.companyId) || !isUuid(input.playerId)) throw playerNotFound();
  const companyId = input.companyId.toLowerCase();
  const playerId = input.playerId.toLowerCase();
  return ctx.db.transaction().execute(async (trx) => {
    const player = await findPlayerById(trx, companyId, playerId);
    if (!player) throw playerNotFound();
    const schedule = await insertScheduleIfAbsent(trx, { player, requestedBy: input.requestedBy, dueAt: dueAt(now, ctx.delaySeconds) });
    if (schedule) {
      await writeEvents(trx, [newEvent(deletionEventTypes.scheduled, companyId, scheduledData(schedule))]);
      return { schedule, created: true };
    }
    const existing = await findScheduleOfPlayer(trx, companyId, playerId);
    if (!existing) throw new AppError("unavailable", "The player's schedule changed meanwhile; try again");
    return { schedule: existing, created: false };
  });
}

/**
 * Cancels the player's pending schedule (operators with the admin tool, users of the company in
 * the support application). Its held message then finds no schedule when it is due and is
 * dropped. Not found when the player has no pending schedule (never scheduled, cancelled
 * already, or its erasure has started). A user's cancellation is recorded in the audit log.
 */
export async function cancelDeletion(
  db: Db,
  input: { playerId: string; companyId?: string | undefined; cancelledBy: Canceller; clientAddress?: string | undefined },
): Promise<DeletionSchedule> {
  if (!isUuid(input.playerId)) throw notFound("no deletion is scheduled for this player");
  return db.transaction().execute(async (trx) => {
    const schedule = await deleteScheduleOfPlayer(trx, input.playerId.toLowerCase());
    if (!schedule || (input.companyId !== undefined && schedule.companyId !== input.companyId.toLowerCase())) {
      throw notFound("no deletion is scheduled for this player");
    }
    await writeEvents(trx, [newEvent(deletionEventTypes.cancelled, schedule.companyId, cancelledData(schedule, input.cancelledBy))]);
    const { cancelledBy } = input;
    if (cancelledBy.type === "user") {
      const player = await findPlayerById(trx, schedule.companyId, schedule.playerId);
      await recordAudit(trx, { actorUserId: cancelledBy.id, clientAddress: input.clientAddress }, {
        action: "player.deletion_cancelled",
        companyId: schedule.companyId,
        playerId: schedule.playerId,
        before: { dueAt: schedule.dueAt.toISOString(), scheduledAt: schedule.createdAt.toISOString(), requestedBy: schedule.requestedBy.type },
        after: null,
        detail: { scheduleId: schedule.id, ...auditedPlayer({ gameId: schedule.gameId, externalId: player?.externalId ?? null }) },
      });
    }
    return schedule;
  });
}

/** A page of the company's pending scheduled deletions with their players, the soonest due first. */
export async function listScheduledDeletions(
  db: Db,
  input: { companyId: string; gameId?: string | undefined; pageSize: number; cursor: string },
): Promise<{ deletions: { schedule: DeletionSchedule; player: Player }[]; nextCursor: string | undefined }> {
  const limit = pageSize(input.pageSize);
  const after = decodeCursor(input.cursor);
  if (!isUuid(input.companyId) || (input.gameId !== undefined && !isUuid(input.gameId))) return { deletions: [], nextCursor: undefined };
  const rows = await listSchedulesWithPlayers(db, { companyId: input.companyId.toLowerCase(), gameId: input.gameId?.toLowerCase(), after, limit: limit + 1 });
  const deletions = rows.slice(0, limit);
  const last = deletions[deletions.length - 1]?.schedule;
  return { deletions, nextCursor: rows.length > limit && last ? encodeCursor({ at: last.dueAt, id: last.id }) : undefined };
}

/** The player's pending schedule, if any (none once cancelled or once its erasure started). */
export async function pendingDeletionOf(db: Db, companyId: string, playerId: string): Promise<DeletionSchedule | undefined> {
  if (!isUuid(companyId) || !isUuid(playerId)) return undefined;
  return findScheduleOfPlayer(db, companyId.toLowerCase(), playerId.toLowerCase());
}

export function listSchedules(db: Db, options: { companyId?: string | undefined; limit?: number } = {}): Promise<DeletionSchedule[]> {
  return listScheduleRows(db, { companyId: options.companyId, limit: options.limit ?? 10_000 });
}

/** Starts the erasure of a player: its row and players.deletion.started, in one transaction. */
async function startErasure(
  trx: Db,
  player: { id: string; companyId: string; gameId: string },
  values: { trigger: Erasure["trigger"]; requestedBy: Requester; requestedAt: Date },
): Promise<{ erasure: Erasure; started: boolean }> {
  const erasure = await insertErasureIfAbsent(trx, { player, ...values });
  if (erasure) {
    await writeEvents(trx, [newEvent(deletionEventTypes.started, player.companyId, startedData(erasure))]);
    return { erasure, started: true };
  }
  // The player's erasure had already started (the other trigger came first): that one counts.
  const existing = await findErasureOfPlayer(trx, player.companyId, player.id);
  if (!existing) throw new AppError("unavailable", "The player's erasure changed meanwhile; try again");
  return { erasure: existing, started: false };
}

/**
 * A scheduled deletion's message is due: if its schedule still exists (not cancelled, not
 * taken over by an immediate deletion), replace the schedule by a started erasure.
 */
export async function startDueSchedule(
  ctx: Pick<DeletionContext, "db">,
  scheduleId: string,
  now: Date = new Date(),
): Promise<{ outcome: "gone" } | { outcome: "not_due"; dueAt: Date } | { outcome: "started"; erasure: Erasure }> {
  if (!isUuid(scheduleId)) return { outcome: "gone" };
  return ctx.db.transaction().execute(async (trx) => {
    const schedule = await lockSchedule(trx, scheduleId);
    if (!schedule) return { outcome: "gone" as const };
    if (schedule.dueAt > now) return { outcome: "not_due" as const, dueAt: schedule.dueAt };
    const { erasure } = await startErasure(
      trx,
      { id: schedule.playerId, companyId: schedule.companyId, gameId: schedule.gameId },
      { trigger: "scheduled", requestedBy: schedule.requestedBy, requestedAt: schedule.createdAt },
    );
    await deleteScheduleOfPlayer(trx, schedule.playerId);
    return { outcome: "started" as const, erasure };
  });
}

/**
 * DELETE /player, and an admin's "Delete now" in the settings: erases the player now and returns
 * when everything is gone. Asking again for a player whose erasure completed answers with that
 * erasure; one that stopped part way is resumed. An erasure a user started is recorded in the
 * audit log (player.deleted) in the transaction that starts it.
 */
export async function deletePlayerNow(
  ctx: DeletionContext,
  input: { companyId: string; playerId: string; requestedBy: Requester; clientAddress?: string | undefined },
): Promise<Erasure> {
  if (!isUuid(input.companyId)) throw playerNotFound();
  const companyId = input.companyId.toLowerCase();
  if (!(await ctx.services.allowsImmediateDeletion(companyId))) {
    throw permissionDenied("Immediate deletion of player data is not enabled for this company");
  }
  if (!isUuid(input.playerId)) throw playerNotFound();
  const playerId = input.playerId.toLowerCase();

  let erasure = await findErasureOfPlayer(ctx.db, companyId, playerId);
  if (!erasure) {
    erasure = await ctx.db.transaction().execute(async (trx) => {
      const player = await findPlayerById(trx, companyId, playerId);
      if (!player) throw playerNotFound();
      const { erasure: begun, started } = await startErasure(trx, player, { trigger: "immediate", requestedBy: input.requestedBy, requestedAt: new Date() });
      const { requestedBy } = input;
      if (started && requestedBy.type === "user") {
        await recordAudit(trx, { actorUserId: requestedBy.id, clientAddress: input.clientAddress }, {
          action: "player.deleted",
          companyId,
          playerId,
          before: null,
          after: null,
          // Ids only: the game's player id is part of what is erased.
          detail: { erasureId: begun.id, trigger: begun.trigger, gameId: player.gameId },
        });
      }
      return begun;
    });
  }
  if (erasure.completedAt !== null) return erasure;

  // The deletion consumer may hold this erasure (its started message): wait for it.
  const deadline = Date.now() + ctx.lockWaitMs;
  for (;;) {
    const result = await runErasure(ctx, erasure.id);
    if (result.outcome === "completed") return result.erasure;
    if (result.outcome === "gone") throw playerNotFound();
    if (Date.now() >= deadline) throw new AppError("unavailable", "The player's erasure is in progress; try again shortly");
    await sleep(100);
  }
}

function errorCode(error: unknown): string {
  return isAppError(error) ? error.code : "internal";
}

/**
 * Runs (or resumes) an erasure if no one else is running it: the steps not yet done, in order,
 * each recorded when it completes; the player record last, in one transaction with the
 * completion, the audit counts and players.player.deleted. `busy` when another runner holds it.
 */
export async function runErasure(
  ctx: Pick<DeletionContext, "db" | "services" | "logger">,
  erasureId: string,
  options: { onStep?: (step: ErasureStep) => void } = {},
): Promise<{ outcome: "completed"; erasure: Erasure } | { outcome: "busy" } | { outcome: "gone" }> {
  if (!isUuid(erasureId)) return { outcome: "gone" };
  const locked = await withErasureLock(ctx.db, erasureId, async (db) => {
    let erasure = await findErasure(db, erasureId);
    if (!erasure) return { outcome: "gone" as const };
    if (erasure.completedAt !== null) return { outcome: "completed" as const, erasure };
    await recordAttempt(db, erasure.id);
    const log = { erasureId: erasure.id, companyId: erasure.companyId, playerId: erasure.playerId };
    try {
      for (const step of pendingSteps(erasure.steps)) {
        erasure = await runStep(db, ctx.services, erasure, step);
        ctx.logger.info({ ...log, step, counts: erasure.steps[step]?.counts }, "erasure step done");
        options.onStep?.(step);
      }
    } catch (error) {
      await recordFailure(db, erasure.id, errorCode(error)).catch(() => undefined);
      ctx.logger.warn({ ...log, err: error }, "erasure stopped; it will be resumed");
      throw error;
    }
    ctx.logger.info(log, "player erased");
    return { outcome: "completed" as const, erasure };
  });
  return locked ?? { outcome: "busy" };
}

async function runStep(db: Db, services: ErasureServices, erasure: Erasure, step: ErasureStep): Promise<Erasure> {
  const { companyId, playerId } = erasure;
  switch (step) {
    case "tickets":
      return recordStep(db, erasure.id, step, stepDone(await services.eraseTickets(companyId, playerId), new Date()));
    case "media": {
      const externalId = (await findExternalId(db, companyId, playerId)) ?? null;
      const counts = await services.deleteAttachments({ companyId, playerId, gameId: erasure.gameId, externalId });
      return recordStep(db, erasure.id, step, stepDone(counts, new Date()));
    }
    case "players":
      return db.transaction().execute(async (trx) => {
        const player = await lockPlayer(trx, companyId, playerId);
        const endedSessions = player ? await deletePlayerSessions(trx, player) : [];
        const sessions = endedSessions.length;
        const schedules = (await deleteScheduleOfPlayer(trx, playerId)) ? 1 : 0;
        const players = player ? await deletePlayerRow(trx, playerId) : 0;
        const now = new Date();
        const done = await recordStep(trx, erasure.id, step, stepDone({ players, sessions, schedules }, now));
        await markCompleted(trx, erasure.id, now);
        const events: NewEvent[] = [newEvent(deletionEventTypes.deleted, companyId, deletedData(done, now))];
        // The gateways cache sessions for a few seconds: this event makes each forget these at
        // once, so the erased player's session stops working everywhere.
        if (endedSessions.length > 0) events.push(newEvent(sessionEventTypes.ended, companyId, sessionsEndedData(endedSessions, "player_erased")));
        await writeEvents(trx, events);
        return { ...done, completedAt: now };
      });
  }
}

/**
 * A safety net at start-up, beside the NATS messages that normally drive deletion: starts the
 * schedules that are due and resumes the erasures that have not completed (say their messages
 * were lost with NATS's storage). Harmless when the messages do arrive: every start re-checks
 * its schedule row under a lock, and a running erasure is skipped (busy) or found complete.
 */
export async function recoverDeletions(
  ctx: Pick<DeletionContext, "db" | "services" | "logger">,
  options: { now?: Date; limit?: number; stopped?: () => boolean } = {},
): Promise<{ started: number; completed: number }> {
  const now = options.now ?? new Date();
  const limit = options.limit ?? 1000;
  const stopped = options.stopped ?? (() => false);
  let started = 0;
  let completed = 0;
  for (const scheduleId of await listDueScheduleIds(ctx.db, now, limit)) {
    if (stopped()) break;
    if ((await startDueSchedule(ctx, scheduleId, now)).outcome === "started") started += 1;
  }
  for (const erasure of await listRunningErasures(ctx.db, limit)) {
    if (stopped()) break;
    try {
      if ((await runErasure(ctx, erasure.id)).outcome === "completed") completed += 1;
    } catch {
      // Logged by runErasure; its started message keeps retrying.
    }
  }
  return { started, completed };
}

/**
 * Runs `work` holding the erasure's session-level advisory lock, on the lock's own connection
 * (so that a pool full of lock holders cannot starve their work). Nothing (undefined) when
 * another runner holds it. The lock goes with the connection if the process dies.
 */
async function withErasureLock<T>(db: Db, erasureId: string, work: (db: Db) => Promise<T>): Promise<T | undefined> {
  const key = `players:erasure:${erasureId}`;
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(connection);
    if (!rows[0]?.locked) return undefined;
    try {
      return await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection);
    }
  });
}
