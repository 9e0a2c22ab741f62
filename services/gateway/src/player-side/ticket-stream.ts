// The live conversation of GET /player-api/tickets/{ticketId}/stream (Server-Sent Events).
// A stream never trusts an event's payload: a nudge (a tickets event on NATS naming the
// ticket, a periodic resync, a NATS reconnect) makes it re-read the ticket's events from
// tickets and send those it has not sent yet, by event id. Every gateway replica can serve
// every player, and the hand-over from the replay to live updates can neither lose nor
// repeat an event: both are the same read.
import { PassThrough } from "node:stream";
import { isAppError } from "@support/errors";
import type { Logger } from "@support/logging";
import { outsideCallScope } from "@support/rpc";
import { KeyedListeners } from "../keyed-listeners.ts";
import type { Schemas } from "../openapi/types.ts";

export type StreamEvent = Schemas["TicketEvent"] & { id: string };

/** What the player sees of the ticket's state; sent again whenever it changes. */
export interface StreamStatus {
  status: Schemas["TicketStatus"];
  resolutionType: string | null;
  csatScore: number | null;
}

export interface StreamSnapshot {
  /** The player-visible events in order (no private notes). */
  events: StreamEvent[];
  status: StreamStatus;
}

/**
 * The streams of one gateway: who listens for which ticket, how many streams each session
 * has open, and closing them all at shutdown.
 */
export class TicketStreamHub {
  private readonly listeners = new KeyedListeners<void>();
  private readonly perSession = new Map<string, number>();
  private readonly streams = new Set<{ close(): void }>();

  /** Calls `listener` on every nudge for the ticket until the returned function is called. */
  listen(ticketId: string, listener: () => void): () => void {
    return this.listeners.add(ticketId, listener);
  }

  /** Something happened to the ticket: its streams re-read it. */
  nudge(ticketId: string): void {
    this.listeners.emit(ticketId, undefined);
  }

  /** Events may have been missed (NATS reconnected): every stream re-reads. */
  nudgeAll(): void {
    this.listeners.emitAll(undefined);
  }

  /** Takes one of the session's `limit` stream slots; false when all are taken. */
  acquire(sessionKey: string, limit: number): boolean {
    const open = this.perSession.get(sessionKey) ?? 0;
    if (open >= limit) return false;
    this.perSession.set(sessionKey, open + 1);
    return true;
  }

  release(sessionKey: string): void {
    const open = (this.perSession.get(sessionKey) ?? 1) - 1;
    if (open <= 0) this.perSession.delete(sessionKey);
    else this.perSession.set(sessionKey, open);
  }

  track(stream: { close(): void }): () => void {
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /** Ends every open stream (gateway shutdown): clients reconnect with Last-Event-ID elsewhere. */
  closeAll(): void {
    for (const stream of [...this.streams]) stream.close();
  }
}

export interface TicketStreamOptions {
  hub: TicketStreamHub;
  ticketId: string;
  /** Reads the ticket now; a not_found AppError (the ticket is gone or no longer the player's) ends the stream. */
  read: () => Promise<StreamSnapshot>;
  /** The first read, done before the answer started (it decided 404/400). */
  initial: StreamSnapshot;
  /** Events up to and including this one were received before (Last-Event-ID). */
  after: string | undefined;
  heartbeatMs: number;
  resyncMs: number;
  /** Epoch ms when the session expires: the stream ends then. */
  endsAt: number;
  /** Called once when the stream ends, for whatever reason. */
  onClose: () => void;
  /**
   * Who of the agents is typing a reply on the ticket (display names), by the agents' presence:
   * `listen` calls back on every change and returns its unsubscribe. Without it no typing is sent.
   */
  typing?: (listener: (agents: string[]) => void) => () => void;
  logger: Logger;
}

function eventFrame(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ticket-event\ndata: ${JSON.stringify(event)}\n\n`;
}

function statusFrame(status: StreamStatus): string {
  return `event: ticket-status\ndata: ${JSON.stringify(status)}\n\n`;
}

/** The agents typing a reply now (an empty list: nobody any more). */
function typingFrame(agents: readonly string[]): string {
  return `event: agent-typing\ndata: ${JSON.stringify({ agents })}\n\n`;
}

const sameStatus = (a: StreamStatus | undefined, b: StreamStatus) =>
  a !== undefined && a.status === b.status && a.resolutionType === b.resolutionType && a.csatScore === b.csatScore;

/** Starts a stream: returns the body to answer with; it ends on close(), client hang-up, session expiry or ticket loss. */
export function openTicketStream(options: TicketStreamOptions): { body: PassThrough; close(): void } {
  const body = new PassThrough();
  const sent = new Set<string>();
  let lastStatus: StreamStatus | undefined;
  let closed = false;
  let running = false;
  let again = false;

  // Events the client had: everything up to its Last-Event-ID.
  if (options.after !== undefined) {
    for (const event of options.initial.events) {
      sent.add(event.id);
      if (event.id === options.after) break;
    }
  }

  const write = (frame: string) => {
    if (!closed) body.write(frame);
  };

  const send = (snapshot: StreamSnapshot) => {
    for (const event of snapshot.events) {
      if (sent.has(event.id)) continue;
      sent.add(event.id);
      write(eventFrame(event));
    }
    if (!sameStatus(lastStatus, snapshot.status)) {
      lastStatus = snapshot.status;
      write(statusFrame(snapshot.status));
    }
  };

  // One read at a time; nudges during a read make exactly one more read after it.
  const sync = async () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        // Outside the opening request's deadline: the stream outlives it; each call keeps its own timeout.
        const snapshot = await outsideCallScope(() => options.read());
        if (!closed) send(snapshot);
      } while (again && !closed);
    } catch (error) {
      if (isAppError(error) && error.code === "not_found") close();
      // Anything else (tickets briefly unavailable): the next nudge or resync reads again.
      else options.logger.warn({ err: error, ticketId: options.ticketId }, "ticket stream read failed; retrying on the next nudge");
    } finally {
      running = false;
    }
  };

  const unlisten = options.hub.listen(options.ticketId, () => void sync());
  let lastTyping = "[]";
  const unlistenTyping =
    options.typing?.((agents) => {
      const names = [...new Set(agents)].sort();
      if (JSON.stringify(names) === lastTyping) return;
      lastTyping = JSON.stringify(names);
      write(typingFrame(names));
    }) ?? (() => undefined);
  const heartbeat = setInterval(() => write(": ping\n\n"), options.heartbeatMs);
  const resync = setInterval(() => void sync(), options.resyncMs);
  const expiry = setTimeout(() => close(), Math.max(0, Math.min(options.endsAt - Date.now(), 2 ** 31 - 1)));
  heartbeat.unref();
  resync.unref();
  expiry.unref();

  function close() {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearInterval(resync);
    clearTimeout(expiry);
    unlisten();
    unlistenTyping();
    untrack();
    body.end();
    options.onClose();
  }
  const untrack = options.hub.track({ close });
  body.on("close", close);

  // A comment first, so that the client sees the stream open before any event.
  write(": stream open\n\n");
  send(options.initial);
  // An event committed between the initial read and the subscription above is caught here.
  void sync();
  return { body, close };
}
