// Routing's triggers: durable JetStream consumers, shared by every replica, of the tickets stream
// (a new ticket, one that lost its assignee or was reopened, one closed: room for its agent) and
// of content's (an agent became available or went away, a game's routing was turned on). Each
// runs a routing pass, which is idempotent, so a redelivered or duplicated event assigns nothing
// twice; a failing pass is retried by the consumer with a growing delay.
import { ack, createConsumer, streamOfService, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import { requeueAwayAgent, routeCompany, routeGame, type RoutingContext } from "../routing/routing.service.ts";

export interface RoutingConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  streamReplicas: number;
  logger: Logger;
  registry?: Registry;
}

export function createRoutingConsumers(ctx: RoutingContext, settings: RoutingConsumerSettings): { start(): Promise<void>; stop(): Promise<void> } {
  let consumers: Consumer[] = [];
  const common = {
    nc: settings.nc,
    natsPrefix: settings.natsPrefix,
    logger: settings.logger,
    // Runs of one company wait for each other on the routing lock; other companies' go on.
    concurrency: 4,
    ackWaitMs: 30_000,
    maxDeliver: -1,
    registry: settings.registry,
    read: readEvent,
  };
  return {
    async start() {
      const tickets = createConsumer({
        ...common,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "tickets", replicas: settings.streamReplicas }),
        durable: "tickets-routing",
        filterSubject: `${settings.natsPrefix}tickets.ticket.>`,
        async handle(event) {
          if (event.type === "tickets.ticket.created") await routeGame(ctx, event.companyId, event.data.gameId);
          else if (event.type === "tickets.ticket.assigned") {
            // Routing's own assignments need no pass; any other change may have freed a place
            // (someone's ticket taken off them) or queued the ticket (no assignee now).
            if (!(event.data.actor.type === "system" && event.data.actor.id === "routing" && event.data.assigneeId !== null)) await routeCompany(ctx, event.companyId);
          } else if (event.type === "tickets.ticket.status_changed") {
            if (event.data.to === "unassigned" || event.data.to === "new") await routeGame(ctx, event.companyId, event.data.gameId);
          } else if (event.type === "tickets.ticket.closed") await routeCompany(ctx, event.companyId);
          return ack;
        },
      });
      const content = createConsumer({
        ...common,
        stream: await streamOfService(settings.nc, { natsPrefix: settings.natsPrefix, service: "content", replicas: settings.streamReplicas }),
        durable: "tickets-routing-content",
        filterSubject: `${settings.natsPrefix}content.>`,
        async handle(event) {
          // A user's games, skills, languages or capacity changed: they may take queued tickets now.
          if (event.type === "content.user.updated") await routeCompany(ctx, event.companyId);
          else if (event.type === "content.user.availability_changed") {
            if (!event.data.available) await requeueAwayAgent(ctx, event.companyId, event.data.userId);
            await routeCompany(ctx, event.companyId);
          } else if (event.type === "content.game.routing_changed" && event.data.enabled) await routeGame(ctx, event.companyId, event.data.gameId);
          return ack;
        },
      });
      consumers = [tickets, content];
      for (const consumer of consumers) await consumer.start();
    },
    async stop() {
      for (const consumer of consumers.reverse()) await consumer.stop();
      consumers = [];
    },
  };
}
