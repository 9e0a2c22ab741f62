// Routing's use cases: hand a game's queue out to its eligible agents, put an away agent's
// unanswered tickets back in the queue, and "unassign for automatic assignment". Each run takes
// the company's routing lock in its transaction, so that replicas routing at once never give an
// agent more than their capacity nor a ticket twice; what it changes goes through the ticket's
// state machine (apply-actions) as the system actor "routing", with the same ticket events and
// outbox events as an agent's assignment. A run is idempotent: running it again on the same
// state assigns nothing more, which is what makes at-least-once triggers safe.
import { writeEvents } from "@support/bus";
import { conflict, failedPrecondition, isUuid, notFound } from "@support/errors";
import type { Kysely } from "kysely";
import type { TicketsContext } from "../context.ts";
import type { TicketsDatabase } from "../database.ts";
import { applyActions } from "../tickets/apply-actions.ts";
import { findTicket, updateTicket } from "../tickets/ticket.repository.ts";
import type { Actor, Ticket } from "../tickets/ticket.ts";
import type { RoutingMetrics } from "./routing.metrics.ts";
import { countOpenAssigned, lastAssignedTimes, listGamesWithQueue, listQueue, listUnansweredAssigned, lockCompanyRouting, recordAssigned, setExcludedUser } from "./routing.repository.ts";
import { planAssignments, skillTagsOf, type RoutingAgent } from "./routing.ts";

type Db = Kysely<TicketsDatabase>;

/** Who routing's changes are attributed to in the ticket's history and events. */
export const ROUTING_ACTOR: Actor = { type: "system", id: "routing" };

/** Most queued tickets one run looks at: the rest wait for the next run (each assignment triggers one). */
const QUEUE_WINDOW = 200;

/** What routing asks content before a run (implemented over Connect in clients.ts). */
export interface RoutingSource {
  gameRouting(companyId: string, gameId: string): Promise<GameRouting>;
}

export interface GameRouting {
  enabled: boolean;
  /** Active, signed in, available agents with access to the game. */
  agents: { userId: string; skills: string[]; languages: string[]; capacity: number }[];
  /** Names of the company's skill tags. */
  skillTags: string[];
}

export type RoutingContext = Pick<TicketsContext, "db" | "logger"> & { routing: RoutingSource; routingMetrics: RoutingMetrics };

/** Applies one assignment change (assign or unassign) to the locked ticket as `actor`, with its events. */
async function changeAssignee(trx: Db, ticket: Ticket, assigneeId: string | null, actor: Actor, now: Date): Promise<Ticket> {
  const action = assigneeId === null ? { type: "unassignTicket" as const } : { type: "assignTicket" as const, assigneeId };
  const plan = applyActions(ticket, [action], { now, apiKeyId: null, actor, hasAccess: () => true, definitions: undefined });
  const updated = await updateTicket(trx, ticket.id, plan.changes, { ticket, events: plan.events });
  await writeEvents(trx, plan.domainEvents);
  return updated;
}

/**
 * Assigns the game's queued tickets to its eligible agents; answers how many. Nothing when the
 * game's routing is off or the game is gone.
 */
export async function routeGame(ctx: RoutingContext, companyId: string, gameId: string): Promise<number> {
  let routing: GameRouting;
  try {
    routing = await ctx.routing.gameRouting(companyId, gameId);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "not_found") return 0;
    throw error;
  }
  if (!routing.enabled) return 0;
  ctx.routingMetrics.routed(companyId, gameId);
  if (routing.agents.length === 0) return 0;
  const skillTags = new Set(routing.skillTags);
  const assigned = await ctx.db.transaction().execute(async (trx) => {
    await lockCompanyRouting(trx, companyId);
    const queue = (await listQueue(trx, companyId, gameId, QUEUE_WINDOW)).map((row) => ({ ...row, skillTags: skillTagsOf(row.tags, skillTags) }));
    if (queue.length === 0) return 0;
    const userIds = routing.agents.map((agent) => agent.userId);
    const [open, last] = await Promise.all([countOpenAssigned(trx, companyId, userIds), lastAssignedTimes(trx, companyId, userIds)]);
    const agents: RoutingAgent[] = routing.agents.map((agent) => ({ ...agent, openAssigned: open.get(agent.userId) ?? 0, lastAssignedAt: last.get(agent.userId) ?? null }));
    const now = new Date();
    const plan = planAssignments(queue, agents, now);
    let done = 0;
    const excluded = new Set(queue.filter((row) => row.excludedUserId !== null).map((row) => row.id));
    for (const [index, { ticketId, userId }] of plan.entries()) {
      // Under the ticket's row lock, as an agent's action takes it: a ticket someone assigned
      // since the queue was read keeps its assignee.
      const ticket = await findTicket(trx, companyId, ticketId, true);
      if (!ticket || ticket.assigneeId !== null || ticket.status === "closed") continue;
      await changeAssignee(trx, ticket, userId, ROUTING_ACTOR, now);
      if (excluded.has(ticketId)) await setExcludedUser(trx, ticketId, null);
      await recordAssigned(trx, companyId, userId, new Date(now.getTime() + index));
      done += 1;
    }
    return done;
  });
  if (assigned > 0) {
    ctx.routingMetrics.assigned(assigned);
    ctx.logger.info({ companyId, gameId, assigned }, "routing assigned tickets");
  }
  return assigned;
}

/** Routes every game of the company that has queued tickets (an agent came back, or has room again). */
export async function routeCompany(ctx: RoutingContext, companyId: string): Promise<number> {
  let total = 0;
  for (const gameId of await listGamesWithQueue(ctx.db, companyId)) total += await routeGame(ctx, companyId, gameId);
  return total;
}

/**
 * The agent went away: their open tickets that no agent has answered yet, in games with routing
 * on, go back to the queue (unassigned by routing) for someone present; answered ones stay with
 * them, as the player is in a conversation with that agent. Answers how many went back.
 */
export async function requeueAwayAgent(ctx: RoutingContext, companyId: string, userId: string): Promise<number> {
  const tickets = await listUnansweredAssigned(ctx.db, companyId, userId);
  const enabled = new Map<string, boolean>();
  let requeued = 0;
  for (const { id, gameId } of tickets) {
    if (!enabled.has(gameId)) enabled.set(gameId, await ctx.routing.gameRouting(companyId, gameId).then((r) => r.enabled, () => false));
    if (!enabled.get(gameId)) continue;
    const changed = await ctx.db.transaction().execute(async (trx) => {
      await lockCompanyRouting(trx, companyId);
      const ticket = await findTicket(trx, companyId, id, true);
      // The agent may have come back, answered or handed the ticket on since the list was read.
      if (!ticket || ticket.assigneeId !== userId || ticket.status === "closed") return false;
      await changeAssignee(trx, ticket, null, ROUTING_ACTOR, new Date());
      return true;
    });
    if (changed) requeued += 1;
  }
  if (requeued > 0) ctx.routingMetrics.requeued("agent_away", requeued);
  return requeued;
}

/**
 * "Unassign for automatic assignment": the user unassigns the ticket and routing assigns it
 * again, to someone else when anyone else can take it. The user must have access to the game,
 * which must have routing on; a closed ticket cannot be requeued.
 */
export async function requeueTicket(ctx: RoutingContext & Pick<TicketsContext, "reference">, companyId: string, ticketId: string, userId: string): Promise<void> {
  if (!isUuid(ticketId) || !isUuid(userId)) throw notFound("ticket not found");
  const current = await findTicket(ctx.db, companyId, ticketId.toLowerCase());
  if (!current || !(await ctx.reference.hasGameAccess(companyId, userId, current.gameId))) throw notFound("ticket not found");
  const routing = await ctx.routing.gameRouting(companyId, current.gameId);
  if (!routing.enabled) throw failedPrecondition("Routing is off for the ticket's game: assign the ticket to someone instead", { type: "ROUTING_OFF" });
  const unassigned = await ctx.db.transaction().execute(async (trx) => {
    const ticket = await findTicket(trx, companyId, current.id, true);
    if (!ticket) throw notFound("ticket not found");
    if (ticket.status === "closed") throw conflict("A closed ticket cannot go back to the queue");
    if (ticket.assigneeId !== null) await changeAssignee(trx, ticket, null, { type: "user", id: userId.toLowerCase() }, new Date());
    await setExcludedUser(trx, ticket.id, userId.toLowerCase());
    return ticket.assigneeId !== null;
  });
  ctx.routingMetrics.requeued("agent_requeued", 1);
  // An unassignment is an event routing acts on; a ticket that had no assignee (waiting in the
  // queue already, or on hold) changed nothing an event would carry, so it is routed here. The
  // request has done its part either way: a failure here leaves the ticket to the next pass.
  if (!unassigned) {
    await routeGame(ctx, companyId, current.gameId).catch((error: unknown) => ctx.logger.warn({ err: error, ticketId: current.id }, "routing after a requeue failed"));
  }
}
