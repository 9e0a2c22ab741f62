// The ticket changes of the agents' live streams (GET /agent-api/stream), and the changes of the
// outbreak incidents (opened, a ticket joined, closed) for the consoles' banners. Every gateway
// replica reads the tickets service's event stream on JetStream once, with an ordered consumer,
// and fans each change out to its open agent streams of that company. A change's id is its
// sequence in that stream, so a client that reconnects with `Last-Event-ID` on any replica gets
// every change after it: from the replica's memory of the most recent changes, else read again
// from the stream, or, when the stream no longer holds them, a "reload" answer.
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages } from "@nats-io/jetstream";
import { ensureStream, PULL_EXPIRES_MS, readEnvelope, streamNameFor, type NatsConnection } from "@support/bus";
import { readEvent } from "@support/events";
import type { Logger } from "@support/logging";
import { KeyedListeners } from "../keyed-listeners.ts";

/** One change of a ticket, as an agent's stream sends it. */
export interface TicketChange {
  /** The change's sequence in the tickets service's stream: the stream event's id. */
  seq: number;
  companyId: string;
  gameId: string;
  ticketId: string;
  runningId: number;
  /** What changed: the domain event's type without `tickets.ticket.` (created, status_changed, assigned, message_added, ...). */
  change: string;
  occurredAt: string;
  /** What a list can update without reading the ticket again, when the change says it. */
  status?: string;
  assigneeId?: string | null;
  tags?: string[];
  /** For message_added: PLAYER_MESSAGE, AGENT_MESSAGE or PRIVATE_NOTE. */
  messageType?: string;
  /** For merged (`ticketId` is the merged ticket): the ticket it was merged into, whose conversation changed too. */
  targetTicketId?: string;
  /** Who made the change: `{type: "user" | "player" | "api_key" | "system", id}`. */
  actor?: { type: string; id: string | null };
}

/** One change of an incident of outbreak detection, as an agent's stream sends it. */
export interface IncidentChange {
  /** The change's sequence in the tickets service's stream, as a ticket change's. */
  seq: number;
  companyId: string;
  gameId: string;
  incidentId: string;
  /** The domain event's type without `tickets.incident.`: opened, ticket_joined or closed. */
  incidentChange: "opened" | "ticket_joined" | "closed";
  occurredAt: string;
}

/** What the feed carries: a ticket's change or an incident's. */
export type FeedChange = TicketChange | IncidentChange;

export type ChangeListener = (change: FeedChange) => void;

/** The answer of `since`: the changes after a sequence, or that the stream no longer holds them. */
export type Since = { changes: FeedChange[] } | { gone: true };

const INCIDENT_CHANGES = new Set(["opened", "ticket_joined", "closed"]);

/** Reads a tickets event from the stream into a change; undefined for anything else. */
export function toFeedChange(seq: number, data: Uint8Array): FeedChange | undefined {
  const read = readEnvelope(data);
  if (!("envelope" in read)) return undefined;
  const event = readEvent(read.envelope);
  if (!("event" in event)) return undefined;
  const { type, companyId, occurredAt } = event.event;
  const d = event.event.data as Record<string, unknown>;
  if (type.startsWith("tickets.incident.")) {
    const incidentChange = type.slice("tickets.incident.".length);
    if (!INCIDENT_CHANGES.has(incidentChange)) return undefined;
    return { seq, companyId, gameId: d.gameId as string, incidentId: d.incidentId as string, incidentChange: incidentChange as IncidentChange["incidentChange"], occurredAt };
  }
  if (!type.startsWith("tickets.ticket.")) return undefined;
  if (typeof d.ticketId !== "string" && typeof d.id !== "string") return undefined;
  const change: TicketChange = {
    seq,
    companyId,
    gameId: d.gameId as string,
    ticketId: (d.ticketId ?? d.id) as string,
    runningId: d.runningId as number,
    change: type.slice("tickets.ticket.".length),
    occurredAt,
  };
  if (type === "tickets.ticket.created") {
    change.status = d.status as string;
    change.assigneeId = (d.assigneeId ?? null) as string | null;
    change.tags = d.tags as string[];
  }
  if (type === "tickets.ticket.status_changed") change.status = d.to as string;
  if (type === "tickets.ticket.assigned") change.assigneeId = (d.assigneeId ?? null) as string | null;
  if (type === "tickets.ticket.tags_changed") change.tags = d.tags as string[];
  if (type === "tickets.ticket.message_added") change.messageType = d.type as string;
  if (type === "tickets.ticket.merged") change.targetTicketId = d.targetTicketId as string;
  if (d.actor && typeof d.actor === "object") change.actor = d.actor as TicketChange["actor"];
  return change;
}

export interface AgentLiveFeedSettings {
  nc: NatsConnection;
  natsPrefix: string;
  logger: Logger;
  /** How many recent changes (of every company) a replica keeps for reconnecting streams. */
  capacity?: number;
}

export class AgentLiveFeed {
  private readonly stream: string;
  private readonly subject: string;
  private readonly capacity: number;
  /** The most recent changes, by ascending sequence. */
  private readonly recent: FeedChange[] = [];
  private readonly listeners = new KeyedListeners<FeedChange>();
  /** The last sequence of the stream this replica has read (every subject, not only tickets'). */
  private readThrough = 0;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly settings: AgentLiveFeedSettings;

  constructor(settings: AgentLiveFeedSettings) {
    this.settings = settings;
    this.stream = streamNameFor(settings.natsPrefix, "tickets");
    // Tickets' and incidents' changes (and the few other subjects of the stream, skipped as read).
    this.subject = `${settings.natsPrefix}tickets.>`;
    this.capacity = settings.capacity ?? 20_000;
  }

  /** The newest sequence this replica knows of: where a new stream starts (its first id). */
  get lastSeq(): number {
    return this.readThrough;
  }

  /** Starts reading the changes after the stream's current end. */
  async start(): Promise<void> {
    const jsm = await jetstreamManager(this.settings.nc);
    let last = 0;
    try {
      last = (await jsm.streams.info(this.stream)).state.last_seq;
    } catch (error) {
      // Not created yet (the gateway started before tickets): created with tickets' subjects so
      // that the consumer can be added (one copy: tickets' own start sets its replicas, in place);
      // the changes begin at 1.
      if (!String((error as Error).message ?? error).includes("not found")) throw error;
      await ensureStream(this.settings.nc, { name: this.stream, subjects: [`${this.settings.natsPrefix}tickets.>`], replicas: 1 });
    }
    this.readThrough = last;
    await this.open(last + 1);
  }

  private async open(startSeq: number): Promise<void> {
    const consumer = await jetstream(this.settings.nc).consumers.get(this.stream, {
      // One subject as a string: a NATS server before 2.10 takes no list of filters.
      filter_subjects: this.subject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSeq,
    });
    // Short pulls: an ordered consumer whose server died (a cluster node) is made anew after
    // two missed heartbeats, a few seconds rather than the client's default half minute.
    const messages = await consumer.consume({ expires: PULL_EXPIRES_MS });
    this.messages = messages;
    this.running = (async () => {
      for await (const message of messages) {
        this.readThrough = Math.max(this.readThrough, message.seq);
        const change = toFeedChange(message.seq, message.data);
        if (change) this.add(change);
      }
    })().catch((error: unknown) => {
      if (!this.stopped) this.settings.logger.error({ err: error }, "agent live feed stopped reading the tickets stream");
    });
  }

  private add(change: FeedChange): void {
    this.recent.push(change);
    if (this.recent.length > this.capacity) this.recent.splice(0, this.recent.length - this.capacity);
    this.listeners.emit(change.companyId, change);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.running;
  }

  /** Calls `listener` with every new change of the company until the returned function is called. */
  listen(companyId: string, listener: ChangeListener): () => void {
    return this.listeners.add(companyId, listener);
  }

  /**
   * The company's changes after `afterSeq` up to what this replica has read: from memory when
   * it still holds them, else read again from the stream; `gone` when the stream no longer has
   * them (its retention passed) or `afterSeq` is ahead of the stream.
   */
  async since(companyId: string, afterSeq: number): Promise<Since> {
    const upTo = this.readThrough;
    if (afterSeq > upTo) return { gone: true };
    const oldest = this.recent[0]?.seq;
    if (oldest !== undefined && afterSeq >= oldest - 1) {
      return { changes: this.recent.filter((change) => change.seq > afterSeq && change.companyId === companyId) };
    }
    if (afterSeq === upTo) return { changes: [] };
    return this.readAgain(companyId, afterSeq, upTo);
  }

  /** Reads the stream from afterSeq + 1 through upTo with a short-lived ordered consumer. */
  private async readAgain(companyId: string, afterSeq: number, upTo: number): Promise<Since> {
    const jsm = await jetstreamManager(this.settings.nc);
    const { first_seq: first } = (await jsm.streams.info(this.stream)).state;
    if (afterSeq + 1 < first) return { gone: true };
    const consumer = await jetstream(this.settings.nc).consumers.get(this.stream, {
      filter_subjects: this.subject,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: afterSeq + 1,
    });
    const changes: FeedChange[] = [];
    // Nothing of tickets after afterSeq (only other subjects): the consumer would wait forever.
    if ((await consumer.info()).num_pending === 0) return { changes };
    const messages = await consumer.consume();
    try {
      for await (const message of messages) {
        if (message.seq > upTo) break;
        const change = toFeedChange(message.seq, message.data);
        if (change && change.companyId === companyId) changes.push(change);
        if (message.seq === upTo || message.info.pending === 0) break;
      }
    } finally {
      await messages.close();
    }
    return { changes };
  }
}
