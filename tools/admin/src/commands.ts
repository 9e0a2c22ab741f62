// What each admin verb does once its arguments are parsed: calls to the admin services, one
// JSON result.
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { AdminPlayer, DeletionSchedule } from "@support/proto";
import { connectToAppError } from "@support/rpc";
import type { Logger } from "@support/logging";
import type { TenantFile } from "@support/tenant-file";
import { AppError } from "@support/errors";
import { applyTenantFile, type RetryPolicy } from "./apply.ts";
import type { AdminClients } from "./clients.ts";

/** The players verbs name the player by exactly one of playerId (the game's own id) and email. */
export type AdminCommand =
  | { verb: "apply"; file: TenantFile; source: string; companyId?: string; dryRun?: boolean }
  | { verb: "api-keys create"; companyId: string; name: string }
  | { verb: "api-keys revoke"; apiKeyId: string }
  | { verb: "games delete"; gameId: string }
  | { verb: "players block" | "players unblock"; gameId: string; playerId?: string; email?: string }
  | { verb: "players schedules"; companyId?: string }
  | { verb: "players cancel-deletion"; servicePlayerId: string }
  | { verb: "users set-password"; email: string; password: string }
  | { verb: "users invite"; companyId: string; email: string; name: string; role?: string; displayName?: string; gameIds: string[] }
  | { verb: "users reset-password"; email: string }
  | { verb: "users deactivate"; companyId: string; email: string }
  | { verb: "users reset-2fa"; email: string };

export interface CommandContext {
  clients: AdminClients;
  retry: RetryPolicy;
  logger?: Logger;
}

function playerResult({ player, created }: AdminPlayer) {
  return {
    playerId: player!.id,
    companyId: player!.companyId,
    gameId: player!.gameId,
    externalId: player!.externalId ?? null,
    email: player!.email ?? null,
    name: player!.name ?? null,
    tier: player!.tier ?? null,
    blocked: player!.blocked,
    created,
  };
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

function scheduleResult(schedule: DeletionSchedule) {
  return {
    scheduleId: schedule.scheduleId,
    servicePlayerId: schedule.playerId,
    companyId: schedule.companyId,
    gameId: schedule.gameId,
    requestedBy: { type: schedule.requestedByType, id: schedule.requestedById ?? null },
    scheduledAt: iso(schedule.scheduledAt),
    dueAt: iso(schedule.dueAt),
  };
}

/** A single-player call's issues name the option (`email`), not the request's target list. */
function singleTarget(error: unknown): AppError {
  const appError = connectToAppError(error);
  if (!appError.details?.issues) return appError;
  const issues = appError.details.issues.map((issue) => ({ ...issue, path: issue.path.replace(/^\/targets\/0/, "") }));
  return new AppError(appError.code, appError.message, { ...appError.details, issues });
}

async function call<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw connectToAppError(error);
  }
}

export async function runCommand(command: AdminCommand, context: CommandContext): Promise<object> {
  const { content, players } = context.clients;
  switch (command.verb) {
    case "apply": {
      const rerun = `pnpm admin apply ${command.companyId !== undefined ? `--company ${command.companyId} ` : ""}${command.source}`;
      return applyTenantFile(context.clients, command.file, { retry: context.retry, logger: context.logger, rerun, companyId: command.companyId, dryRun: command.dryRun });
    }
    case "api-keys create": {
      const key = await call(content.createApiKey({ companyId: command.companyId, name: command.name }));
      return { apiKeyId: key.apiKeyId, name: key.name, secret: key.secret };
    }
    case "api-keys revoke":
      return { apiKeyId: (await call(content.revokeApiKey({ apiKeyId: command.apiKeyId }))).apiKeyId, revoked: true };
    case "games delete":
      return { gameId: (await call(content.deleteGame({ gameId: command.gameId }))).gameId, deleted: true };
    case "players block":
    case "players unblock": {
      // Operators name the game only; the players service needs its company.
      const { companyId } = await call(content.locateGame({ gameId: command.gameId }));
      const request = { companyId, targets: [{ gameId: command.gameId, externalId: command.playerId, email: command.email }] };
      try {
        const response = command.verb === "players block" ? await players.blockPlayers(request) : await players.unblockPlayers(request);
        return playerResult(response.players[0]!);
      } catch (error) {
        throw singleTarget(error);
      }
    }
    case "players schedules": {
      const response = await call(players.listDeletionSchedules({ companyId: command.companyId }));
      return { schedules: response.schedules.map(scheduleResult) };
    }
    case "players cancel-deletion": {
      const response = await call(players.cancelDeletion({ playerId: command.servicePlayerId }));
      return { ...scheduleResult(response.schedule!), cancelled: true };
    }
    case "users invite": {
      const { verb: _verb, ...request } = command;
      const invited = await call(content.inviteUser(request));
      return { userId: invited.userId, link: invited.link, expiresAt: iso(invited.expiresAt), mailed: invited.mailed };
    }
    case "users reset-password": {
      const issued = await call(content.createPasswordResetLink({ email: command.email }));
      return { userId: issued.userId, link: issued.link, expiresAt: iso(issued.expiresAt), mailed: issued.mailed };
    }
    case "users deactivate": {
      const done = await call(content.deactivateUser({ companyId: command.companyId, email: command.email }));
      return { userId: done.userId, deactivated: true, endedSessions: done.endedSessions };
    }
    case "users set-password": {
      const response = await call(content.setUserPassword({ email: command.email, password: command.password }));
      return { userId: response.userId, companyId: response.companyId, passwordSet: true };
    }
    case "users reset-2fa": {
      const response = await call(content.resetUserTwoFactor({ email: command.email }));
      return { userId: response.userId, companyId: response.companyId, twoFactorReset: true, hadTwoFactor: response.hadTwoFactor, sessionsEnded: response.sessionsEnded };
    }
  }
}
