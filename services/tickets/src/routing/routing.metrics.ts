// support_routing_assignments_total{reason} (tickets routing assigned or put back in the queue),
// support_routing_runs_total{outcome} and, read at each scrape, support_routing_queue_length
// {game_id} for the games this replica saw with routing on: the backlog an alert watches.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import { addScrapeSource, sharedForScrape, type Registry } from "@support/metrics";
import { Counter } from "prom-client";
import type { TicketsDatabase } from "../database.ts";

export interface RoutingMetrics {
  assigned(count: number): void;
  requeued(reason: "agent_away" | "agent_requeued", count: number): void;
  /** A game routing found switched on: its queue is reported from now on. */
  routed(companyId: string, gameId: string): void;
}

export const noRoutingMetrics: RoutingMetrics = { assigned() {}, requeued() {}, routed() {} };

export function registerRoutingMetrics(registry: Registry, db: Kysely<TicketsDatabase>, logger: Logger): RoutingMetrics {
  const changes = new Counter({
    name: "support_routing_assignments_total",
    help: "Tickets routing assigned to an agent (reason assigned) or put back in the queue (agent_away: the agent went away; agent_requeued: an agent unassigned for automatic assignment)",
    labelNames: ["reason"],
    registers: [registry],
  });
  const games = new Map<string, string>();
  const read = sharedForScrape(async () => {
    if (games.size === 0) return [];
    const rows = await db
      .selectFrom("tickets")
      .select(["game_id", (eb) => eb.fn.countAll<string>().as("queued")])
      .where("game_id", "in", [...games.keys()])
      .where("assignee_id", "is", null)
      .where("closed_at", "is", null)
      .where("status", "in", ["new", "unassigned"])
      .groupBy("game_id")
      .execute();
    const counts = new Map(rows.map((row) => [row.game_id, Number(row.queued)]));
    return [...games.keys()].map((gameId) => ({ labels: { game_id: gameId }, value: counts.get(gameId) ?? 0 }));
  });
  addScrapeSource(registry, { name: "support_routing_queue_length", help: "Open tickets without an agent in the games with routing on, by game", labelNames: ["game_id"] }, read, {
    onError: (error: unknown) => logger.warn({ err: error }, "routing queue not counted for metrics"),
  });
  return {
    assigned: (count) => changes.inc({ reason: "assigned" }, count),
    requeued: (reason, count) => changes.inc({ reason }, count),
    routed: (companyId, gameId) => void games.set(gameId, companyId),
  };
}
