// User use cases: operators create users with game access and skills; the tickets service checks access.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound, permissionDenied } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { requireLiveGame } from "../games/game.service.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid, throwIfInvalid } from "../common/validation.ts";
import { listLiveTags } from "../tags/tag.repository.ts";
import { parseNewUser, skillIssues, userEventData, type NewUserInput, type User } from "./user.ts";
import { findUser, hasLiveGameAccess, insertUser } from "./user.repository.ts";

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
