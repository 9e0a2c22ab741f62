// User use cases: operators create users with game access and skills; the tickets service checks access.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { AppError, notFound, permissionDenied } from "@support/errors";
import { writeAudit, type AuditOrigin } from "../audit/audit-log.ts";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { requireLiveGame } from "../games/game.service.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";
import { listLiveTags } from "../tags/tag.repository.ts";
import { parseNewUser, parseUserChange, skillIssues, userAuditView, userEventData, type NewUserInput, type User, type UserChangeInput } from "./user.ts";
import { findCompanyUserForUpdate, findUser, hasLiveGameAccess, insertUser, lockActiveAdmins, updateUserRow } from "./user.repository.ts";

type Db = Kysely<ContentDatabase>;

export async function createUser(db: Db, companyId: string, input: NewUserInput): Promise<User> {
  const values = parseNewUser(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !(await findCompany(trx, companyId))) throw notFound("company not found");
    // Every game must be a live game of the same company.
    for (const gameId of values.gameIds) await requireLiveGame(trx, companyId, gameId);
    if (values.skills.length > 0) throwIfInvalid(skillIssues(values.skills, await listLiveTags(trx, companyId)));
    const user = await uniqueOrConflict(insertUser(trx, companyId, values), `a user with email ${values.email} already exists`);
    await writeEvents(trx, [newEvent("content.user.created", companyId, userEventData(user))]);
    return user;
  });
}

/** False for unknown users, other companies' users, games without access and deleted games. */
export async function checkUserAccess(db: Db, companyId: string, userId: string, gameId: string): Promise<boolean> {
  if (!isUuid(companyId) || !isUuid(userId) || !isUuid(gameId)) return false;
  return hasLiveGameAccess(db, companyId, userId, gameId);
}

/**
 * The user, when an active admin of the company; PERMISSION_DENIED otherwise (an agent, another
 * company's user, an inactive or unknown user alike). Settings changes check it before reading.
 */
export async function requireCompanyAdmin(db: Db, companyId: string, userId: string, what: string): Promise<User> {
  const user = isUuid(companyId) && isUuid(userId) ? await findUser(db, userId) : undefined;
  if (!user || user.companyId !== companyId || !user.active || user.role !== "admin") throw permissionDenied(`Only an admin of the company ${what}`);
  return user;
}

/** Issues (/gameIds/<i>) for ids that are no live game of the company. */
export async function gameIssues(db: Db, companyId: string, gameIds: readonly string[]): Promise<ValidationIssue[]> {
  if (gameIds.length === 0) return [];
  const rows = await db.selectFrom("games").select("id").where("company_id", "=", companyId).where("deleted_at", "is", null).where("id", "in", [...gameIds]).execute();
  const live = new Set(rows.map((row) => row.id));
  return gameIds.flatMap((gameId, index) => (live.has(gameId) ? [] : [{ path: `/gameIds/${index}`, message: "must be a live game of the company" }]));
}

/**
 * The rules of the team settings for a change that takes a user's admin role or activity away
 * (`what`), checked against the company's active admins (lockActiveAdmins, locked before the
 * user's own row, so that two such changes at once never wait for each other): an admin acting on themself is
 * refused (OWN_ROLE / OWN_ACCOUNT), the company keeps at least one active admin (LAST_ADMIN),
 * and the acting admin must still be one (an admin demoted a moment ago acts no more).
 */
export function checkAdminLeft(admins: readonly string[], user: User, origin: AuditOrigin, what: "role" | "account"): void {
  const actorId = origin.actor.type === "user" ? origin.actor.id : null;
  if (actorId !== null && !admins.includes(actorId)) throw permissionDenied("Only an admin of the company changes its team");
  if (user.role === "admin" && user.active && admins.filter((id) => id !== user.id).length === 0) {
    throw new AppError("conflict", `${user.name} is the company's last active admin: make another user an admin first`, { type: "LAST_ADMIN" });
  }
  if (actorId === user.id) {
    throw what === "role"
      ? new AppError("conflict", "You cannot change your own role: another admin can", { type: "OWN_ROLE" })
      : new AppError("conflict", "You cannot deactivate your own account: another admin can", { type: "OWN_ACCOUNT" });
  }
}

/**
 * Changes a user's role, games and skills (each when given), in the team settings: the games
 * must be live games of the company, the skills its skill tags; taking an admin's role away
 * follows checkAdminLeft. Recorded as user.updated with the user before and after.
 */
export async function updateUser(db: Db, companyId: string, userId: string, input: UserChangeInput, origin: AuditOrigin, now = new Date()): Promise<User> {
  const change = parseUserChange(input);
  return inTransaction(db, async (trx) => {
    if (!isUuid(companyId) || !isUuid(userId)) throw notFound("user not found");
    const admins = change.role !== undefined ? await lockActiveAdmins(trx, companyId) : [];
    const user = await findCompanyUserForUpdate(trx, companyId, userId);
    if (!user) throw notFound("user not found");
    const issues = change.gameIds ? await gameIssues(trx, companyId, change.gameIds) : [];
    if (change.skills && change.skills.length > 0) issues.push(...skillIssues(change.skills, await listLiveTags(trx, companyId)));
    throwIfInvalid(issues);
    if (change.role !== undefined && change.role !== user.role && user.role === "admin") checkAdminLeft(admins, user, origin, "role");
    await updateUserRow(trx, user, change, now);
    const updated = (await findUser(trx, user.id))!;
    const before = userAuditView(user);
    const after = userAuditView(updated);
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      await writeEvents(trx, [newEvent("content.user.updated", companyId, { ...userEventData(updated), languages: updated.languages, capacity: updated.capacity })]);
      await writeAudit(trx, { action: "user.updated", companyId, userId: user.id, actor: origin.actor, clientAddress: origin.clientAddress ?? null, target: { type: "user", id: user.id }, before, after }, now);
    }
    return updated;
  });
}
