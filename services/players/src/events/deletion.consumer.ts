// The deletion consumer: a durable JetStream consumer on players.deletion.>, shared by every
// replica (each message goes to one of them at a time). It carries the delay of scheduled
// deletions: a players.deletion.scheduled message is nak'ed with a delay until its due time (at
// most an hour at a time), so neither a restart of the service nor of NATS (file storage) loses
// a schedule. When due, the schedule row decides (cancelled: nothing to do). A
// players.deletion.started message runs or resumes its erasure until it completes. Messages are
// read against the event contract: one that does not match it goes to the dead-letter store.
import type { Registry } from "@support/metrics";
import { ack, createConsumer, retryIn, streamNameFor, type Consumer, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import { deletionEventTypes, holdMs } from "../deletion/deletion.ts";
import { recoverDeletions, runErasure, startDueSchedule, type DeletionContext } from "../deletion/deletion.service.ts";

/** How soon to look again when another runner holds the erasure. */
const BUSY_RETRY_MS = 2000;

export interface DeletionConsumerSettings {
  nc: NatsConnection;
  natsPrefix: string;
  logger: Logger;
  /** Deliveries pending across replicas: every held schedule counts (PLAYER_DELETION_MAX_PENDING). */
  maxPending: number;
  concurrency?: number;
  /** The process's metrics (the consumer's backlog, redeliveries, terminations). */
  registry?: Registry;
}

/**
 * The consumer, plus a recovery pass at start-up (in the background) for schedules and
 * erasures whose messages NATS no longer has.
 */
export function createDeletionConsumer(ctx: DeletionContext, settings: DeletionConsumerSettings): Consumer {
  const consumer = createMessageConsumer(ctx, settings);
  let stopped = false;
  let recovery: Promise<unknown> | undefined;
  return {
    async start() {
      stopped = false;
      await consumer.start();
      recovery = recoverDeletions(ctx, { stopped: () => stopped })
        .then((done) => {
          if (done.started > 0 || done.completed > 0) settings.logger.info(done, "recovered player deletions at start-up");
        })
        .catch((error: unknown) => settings.logger.warn({ err: error }, "player deletion recovery failed; the NATS messages still drive deletion"));
    },
    async stop() {
      stopped = true;
      await consumer.stop();
      await recovery;
    },
  };
}

function createMessageConsumer(ctx: DeletionContext, settings: DeletionConsumerSettings): Consumer {
  return createConsumer({
    nc: settings.nc,
    natsPrefix: settings.natsPrefix,
    stream: streamNameFor(settings.natsPrefix, "players"),
    durable: "players-deletion",
    filterSubject: `${settings.natsPrefix}players.deletion.>`,
    logger: settings.logger,
    concurrency: settings.concurrency ?? 4,
    // An erasure step is a few RPCs; a delivery that is not answered within a minute (the
    // replica died) goes to another replica. Long steps report progress (working()).
    ackWaitMs: 60_000,
    maxDeliver: -1,
    // No bound on failing deliveries: a schedule's delivery count also counts every hour it was
    // held back, so a bound would send a long-held schedule to the dead letters at its first
    // failure once due. An erasure that keeps failing is watched by SupportDeletionsOverdue;
    // unreadable messages and `term` verdicts still go to the dead-letter store.
    maxDeliveries: 0,
    maxAckPending: settings.maxPending,
    registry: settings.registry,
    read: readEvent,
    async handle(event, message) {
      switch (event.type) {
        case deletionEventTypes.scheduled: {
          const { scheduleId } = event.data;
          const due = new Date(event.data.dueAt);
          const hold = holdMs(due, new Date());
          if (hold > 0) return retryIn(hold);
          const started = await startDueSchedule(ctx, scheduleId);
          if (started.outcome === "not_due") return retryIn(holdMs(started.dueAt, new Date()) || 1);
          if (started.outcome === "started") settings.logger.info({ erasureId: started.erasure.id, scheduleId }, "scheduled deletion is due; erasure started");
          return ack;
        }
        case deletionEventTypes.started: {
          const { erasureId } = event.data;
          // A failure throws: the consumer retries with backoff until the erasure completes.
          const result = await runErasure(ctx, erasureId, { onStep: () => message.working() });
          return result.outcome === "busy" ? retryIn(BUSY_RETRY_MS) : ack;
        }
        default:
          // players.deletion.cancelled: nothing to do (the schedule row is gone).
          return ack;
      }
    },
  });
}
