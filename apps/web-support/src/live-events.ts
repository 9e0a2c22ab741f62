// Keeps a conversation current without a reload: the ticket's Server-Sent Events stream, read
// with fetch() (EventSource cannot send the Authorization header), resumed with Last-Event-ID
// after a drop. While the stream cannot be had, the events are polled instead, so new
// messages still arrive within two seconds.
import type { PlayerApi, TicketEvent } from "./api.ts";

const POLL_INTERVAL_MS = 1500;
const RECONNECT_DELAY_MS = 1000;

export interface LiveEvents {
  stop(): void;
}

/** Splits a text/event-stream body into events (the fields the page uses: id, event, data). */
export function createSseParser(onEvent: (event: { id?: string; event: string; data: string }) => void): (chunk: string) => void {
  let buffer = "";
  let id: string | undefined;
  let event = "message";
  let data: string[] = [];
  return (chunk) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A lone CR at the end may be the first half of a CRLF split between chunks.
      if (buffer[newline] === "\r" && newline === buffer.length - 1) break;
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) onEvent({ id, event, data: data.join("\n") });
        event = "message";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  };
}

/**
 * Calls `onEvents` with the ticket's events as they come (possibly again: the caller merges by
 * event id) until stopped. Starts with a full read, so nothing between the page's first load
 * and the stream's start is missed.
 */
export interface TicketStatus {
  status: string;
  resolutionType: string | null;
  csatScore: number | null;
}

export function followTicket(
  api: PlayerApi,
  ticketId: string,
  handlers: {
    onEvents(events: TicketEvent[]): void;
    onStatus(status: TicketStatus): void;
    onGone(error: unknown): void;
    /** Who of the agents is typing a reply (display names; empty: nobody). Only while the stream runs. */
    onTyping?(agents: string[]): void;
    /** Whether the conversation is followed now ("live": the stream, or polls that answer) or being reached again. */
    onConnection?(state: "live" | "reconnecting"): void;
  },
): LiveEvents {
  const { onEvents, onStatus, onGone } = handlers;
  const onTyping = handlers.onTyping ?? (() => undefined);
  let connection: "live" | "reconnecting" | undefined;
  const connected = (state: "live" | "reconnecting") => {
    if (state === connection) return;
    connection = state;
    handlers.onConnection?.(state);
  };
  const controller = new AbortController();
  let stopped = false;
  let lastEventId: string | undefined;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function poll(): Promise<void> {
    try {
      onEvents(await api.events(ticketId));
      connected("live");
    } catch (error) {
      if (isFatal(error)) {
        stopped = true;
        onGone(error);
      } else connected("reconnecting");
    }
  }

  async function streamOnce(): Promise<boolean> {
    let response: Response;
    try {
      response = await api.stream(ticketId, lastEventId, controller.signal);
    } catch (error) {
      const status = (error as { status?: number }).status;
      // A 404 here may be an API without the stream route: the poll tells a gone ticket apart.
      if (status === 404) return false;
      // A cursor the API does not know (400): start over with the whole conversation.
      if (status === 400 && lastEventId !== undefined) {
        lastEventId = undefined;
        return true;
      }
      throw error;
    }
    if (!response.body || !(response.headers.get("content-type") ?? "").includes("text/event-stream")) return false;
    connected("live");
    // Everything up to now, then live: events in between are replayed by the stream or were
    // in the read (duplicates are merged by id).
    if (lastEventId === undefined) await poll();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const parse = createSseParser(({ id, event, data }) => {
      try {
        // Status frames carry no id: only ticket events move the cursor. Other event names are ignored.
        if (event === "ticket-status") onStatus(JSON.parse(data) as TicketStatus);
        if (event === "agent-typing") onTyping(((JSON.parse(data) as { agents?: unknown }).agents as string[] | undefined)?.filter((name) => typeof name === "string") ?? []);
        if (event !== "ticket-event") return;
        if (id) lastEventId = id;
        onEvents([JSON.parse(data) as TicketEvent]);
      } catch {
        // A malformed frame is skipped; the next full read repairs the view.
      }
    });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return true;
        parse(value);
      }
    } finally {
      // Without the stream nobody is known to be typing, and the conversation is being reached again.
      onTyping([]);
      if (!stopped) connected("reconnecting");
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      try {
        const streamed = await streamOnce();
        if (!streamed) await pollFor(10_000);
        else await sleep(RECONNECT_DELAY_MS);
      } catch (error) {
        if (stopped) return;
        if (isFatal(error)) {
          stopped = true;
          onGone(error);
          return;
        }
        connected("reconnecting");
        // No stream here (an older API, a proxy that buffers): poll for a while, then try again.
        await pollFor(10_000);
      }
    }
  }

  async function pollFor(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!stopped && Date.now() < until) {
      await poll();
      await new Promise<void>((resolve) => {
        pollTimer = setTimeout(resolve, POLL_INTERVAL_MS);
      });
    }
  }

  void run();
  return {
    stop() {
      stopped = true;
      clearTimeout(pollTimer);
      controller.abort();
    },
  };
}

/** The session ended or the ticket is not the player's: following makes no sense any more. */
function isFatal(error: unknown): boolean {
  const status = (error as { status?: number }).status;
  return status === 403 || status === 404;
}
