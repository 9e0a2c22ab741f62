// Messages the player wrote while the page could not reach the API: kept in order (in
// sessionStorage, per ticket, so a reload keeps them) and sent when the connection is back
// (the browser says it is online again, or the conversation's stream or polls answer again).
// Only text waits: files need an upload, which needs the connection.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type PlayerApi } from "./api.ts";
import { readTabStorage, writeTabStorage } from "./tab-storage.ts";

export interface QueuedMessage {
  id: string;
  text: string;
  writtenAt: string;
}

const storageKey = (ticketId: string) => `support.outbox.${ticketId}`;

function stored(ticketId: string): QueuedMessage[] {
  try {
    const value = JSON.parse(readTabStorage(storageKey(ticketId)) ?? "[]") as unknown;
    return Array.isArray(value) ? (value as QueuedMessage[]).filter((item) => typeof item?.text === "string" && typeof item.id === "string") : [];
  } catch {
    // Not JSON (written by something else): nothing waits.
    return [];
  }
}

function store(ticketId: string, queue: readonly QueuedMessage[]): void {
  writeTabStorage(storageKey(ticketId), queue.length === 0 ? null : JSON.stringify(queue));
}

/** A failure that says nothing about the message: the request never got an answer. */
export function isConnectionFailure(error: unknown): boolean {
  return !(error instanceof ApiError) && (error instanceof TypeError || (error as { name?: string } | null)?.name === "NetworkError");
}

export interface Outbox {
  queue: readonly QueuedMessage[];
  /** Keeps `text` to be sent when the connection is back. */
  add(text: string): void;
  /** Sends what waits, in order; stops at the first message the connection fails again. */
  flush(): Promise<void>;
}

/**
 * The ticket's outbox. `onSent` runs after each message that went out; `onRefused` for one the
 * API refused (the ticket closed meanwhile, say): it is dropped, the player told.
 */
export function useOutbox(api: PlayerApi, ticketId: string, onSent: () => Promise<void>, onRefused: (error: unknown) => void): Outbox {
  const [queue, setQueue] = useState<QueuedMessage[]>(() => stored(ticketId));
  const current = useRef(queue);
  const flushing = useRef(false);
  const update = (next: QueuedMessage[]) => {
    current.current = next;
    store(ticketId, next);
    setQueue(next);
  };

  async function flush(): Promise<void> {
    if (flushing.current) return;
    flushing.current = true;
    try {
      while (current.current.length > 0) {
        const [first] = current.current;
        try {
          await api.sendMessage(ticketId, first!.text, []);
        } catch (error) {
          if (isConnectionFailure(error)) return;
          onRefused(error);
        }
        update(current.current.slice(1));
        await onSent();
      }
    } finally {
      flushing.current = false;
    }
  }

  useEffect(() => {
    const online = () => void flush();
    addEventListener("online", online);
    if (navigator.onLine) void flush();
    return () => removeEventListener("online", online);
  }, [api, ticketId]);

  return {
    queue,
    add(text) {
      update([...current.current, { id: `${Date.now()}-${current.current.length}`, text, writtenAt: new Date().toISOString() }]);
      if (navigator.onLine) void flush();
    },
    flush,
  };
}
