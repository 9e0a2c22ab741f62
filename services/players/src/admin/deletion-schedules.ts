// The player-deletion part of the operators' admin command (D10): list the pending scheduled
// deletions and cancel one, directly on the database like the rest of the command, through the
// deletion use cases (so a cancellation reaches NATS through players.outbox). The command lives
// in the content service (services/content/src/admin/cli.ts).
import { createDb, type Kysely } from "@support/db";
import { PLAYERS_SCHEMA, type PlayersDatabase } from "../database.ts";
import type { DeletionSchedule } from "../deletion/deletion.ts";
import { cancelDeletion, listSchedules } from "../deletion/deletion.service.ts";
import { migratePlayersSchema } from "./block-players.ts";

/** What the admin command prints for one schedule: ids and times, no personal data. */
export interface AdminScheduleResult {
  scheduleId: string;
  servicePlayerId: string;
  companyId: string;
  gameId: string;
  requestedBy: { type: string; id: string | null };
  scheduledAt: string;
  dueAt: string;
}

function result(schedule: DeletionSchedule): AdminScheduleResult {
  return {
    scheduleId: schedule.id,
    servicePlayerId: schedule.playerId,
    companyId: schedule.companyId,
    gameId: schedule.gameId,
    requestedBy: schedule.requestedBy,
    scheduledAt: schedule.createdAt.toISOString(),
    dueAt: schedule.dueAt.toISOString(),
  };
}

async function withPlayersDatabase<T>(databaseUrl: string, work: (db: Kysely<PlayersDatabase>) => Promise<T>): Promise<T> {
  await migratePlayersSchema(databaseUrl);
  const db = createDb<PlayersDatabase>({ url: databaseUrl, schema: PLAYERS_SCHEMA, maxConnections: 2, applicationName: "players-admin" });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** `pnpm admin players schedules [--company <id>]`: pending schedules, soonest due first. */
export async function listScheduledDeletions(request: { databaseUrl: string; companyId?: string | undefined }): Promise<{ schedules: AdminScheduleResult[] }> {
  return withPlayersDatabase(request.databaseUrl, async (db) => ({
    schedules: (await listSchedules(db, { companyId: request.companyId })).map(result),
  }));
}

/**
 * `pnpm admin players cancel-deletion <servicePlayerId>`: removes the schedule; its held NATS
 * message then finds nothing to do. A player without a pending schedule is a not_found AppError.
 */
export async function cancelScheduledDeletion(request: { databaseUrl: string; servicePlayerId: string }): Promise<AdminScheduleResult & { cancelled: true }> {
  return withPlayersDatabase(request.databaseUrl, async (db) => ({
    ...result(await cancelDeletion(db, { playerId: request.servicePlayerId, cancelledBy: { type: "operator", id: null } })),
    cancelled: true as const,
  }));
}
