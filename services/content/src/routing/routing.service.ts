// Routing's side in content: the agents' availability toggle (their own, or away when their last
// session ends) and a game's routing switch, each change announced for routing (in the tickets
// service) to act on; and what routing asks before assigning: the game's switch and its agents.
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { isUuid } from "../common/validation.ts";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import { listLiveTags } from "../tags/tag.repository.ts";
import { findGameRouting, hasLiveSession, listQuietAvailable, listRoutableAgents, updateAvailability, updateGameRouting, type RoutingAgentRow } from "./routing.repository.ts";

type Db = Kysely<ContentDatabase>;

export type AvailabilityReason = "agent" | "signed_out" | "deactivated" | "idle";

/** Sets the user's availability in the transaction given; announces a change. NOT_FOUND for another company's user. */
export async function setAvailabilityIn(trx: Db, companyId: string, userId: string, available: boolean, reason: AvailabilityReason, now = new Date()): Promise<boolean> {
  if (!isUuid(userId)) throw notFound("user not found");
  const before = await updateAvailability(trx, companyId, userId, available, now);
  if (before === undefined) throw notFound("user not found");
  if (before !== available) await writeEvents(trx, [newEvent("content.user.availability_changed", companyId, { userId, available, reason })]);
  return available;
}

export function setAvailability(db: Db, companyId: string, userId: string, available: boolean, now = new Date()): Promise<boolean> {
  return db.transaction().execute((trx) => setAvailabilityIn(trx, companyId, userId, available, "agent", now));
}

/**
 * Called where sessions end: a user with no live session left cannot answer tickets, so they go
 * away (routing then puts their untouched tickets back in the queue).
 */
export async function awayWithoutSessions(trx: Db, user: { id: string; companyId: string }, reason: AvailabilityReason, now: Date): Promise<void> {
  if (await hasLiveSession(trx, user.id, now)) return;
  const before = await updateAvailability(trx, user.companyId, user.id, false, now);
  if (before === true) await writeEvents(trx, [newEvent("content.user.availability_changed", user.companyId, { userId: user.id, available: false, reason })]);
}

/**
 * Sets away the available users whose consoles went quiet: none of their sessions was used for
 * `awayAfterMs` (an open console uses its session every minute, so this is a console closed
 * without signing out). Each is checked again under its row lock. Answers how many went away.
 */
export async function awayQuietAgents(db: Db, awayAfterMs: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - awayAfterMs);
  let away = 0;
  for (const user of await listQuietAvailable(db, cutoff, now, 100)) {
    const changed = await db.transaction().execute(async (trx) => {
      const still = await trx.selectFrom("users").select("available").where("id", "=", user.id).forUpdate().executeTakeFirst();
      if (!still?.available || (await listQuietAvailable(trx, cutoff, now, 1000)).every((quiet) => quiet.id !== user.id)) return false;
      await updateAvailability(trx, user.companyId, user.id, false, now);
      await writeEvents(trx, [newEvent("content.user.availability_changed", user.companyId, { userId: user.id, available: false, reason: "idle" })]);
      return true;
    });
    if (changed) away += 1;
  }
  return away;
}

/** Turns a game's routing on or off in the transaction given; announces a change. NOT_FOUND for no such live game. */
export async function setGameRoutingIn(trx: Db, companyId: string, gameId: string, enabled: boolean, now = new Date()): Promise<void> {
  if (!isUuid(gameId)) throw notFound("game not found");
  const before = await updateGameRouting(trx, companyId, gameId, enabled, now);
  if (before === undefined) throw notFound("game not found");
  if (before !== enabled) await writeEvents(trx, [newEvent("content.game.routing_changed", companyId, { gameId, enabled })]);
}

export async function getGameRouting(db: Db, companyId: string, gameId: string, now = new Date()): Promise<{ enabled: boolean; agents: RoutingAgentRow[]; skillTags: string[] }> {
  if (!isUuid(companyId) || !isUuid(gameId)) throw notFound("game not found");
  const enabled = await findGameRouting(db, companyId, gameId);
  if (enabled === undefined) throw notFound("game not found");
  if (!enabled) return { enabled, agents: [], skillTags: [] };
  const agents = await listRoutableAgents(db, companyId, gameId, now);
  // Nobody to route to (everyone away or signed out, a common state): the skill tags are not read.
  if (agents.length === 0) return { enabled, agents, skillTags: [] };
  const tags = await listLiveTags(db, companyId);
  return { enabled, agents, skillTags: [...new Set(tags.filter((tag) => tag.isSkill).map((tag) => tag.name))] };
}

/** An admin turns a game's routing on or off in the settings: announced and written to the audit log. */
export function setGameRouting(db: Db, companyId: string, gameId: string, enabled: boolean, origin: ChangeOrigin): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const before = isUuid(gameId) ? await findGameRouting(trx, companyId, gameId) : undefined;
    await setGameRoutingIn(trx, companyId, gameId, enabled);
    if (before !== enabled) {
      await writeAudit(trx, {
        action: "game.routing_changed", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
        target: { type: "game", id: gameId }, before: { routing: before ?? false }, after: { routing: enabled },
      });
    }
  });
}
