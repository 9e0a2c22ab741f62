// The console's live connection: one EventSource on /agent-api/stream while signed in. Ticket
// changes bump a counter that lists and the open ticket watch (and patch what they can); an
// incident's change (opened, a ticket joined, closed) reads the banner's incidents again;
// presence is kept per ticket. EventSource reconnects by itself with Last-Event-ID, so no
// change is missed; a "reload" event means the missed changes are gone: everything reloads.
import { signal } from "@preact/signals";
import { loadIncidents } from "./incidents.ts";

export interface TicketChange {
  seq: number;
  ticketId: string;
  runningId: number;
  gameId: string;
  change: string;
  occurredAt: string;
  status?: string;
  assigneeId?: string | null;
  tags?: string[];
  messageType?: string;
  /** For merged: the ticket the merged one went into (its conversation changed too). */
  targetTicketId?: string;
  actor?: { type: string; id: string | null };
}

export interface TicketPresence {
  ticketId: string;
  gameId: string;
  agents: { userId: string; displayName: string; state: "viewing" | "typing" }[];
}

/** The latest change (lists refresh on it); `reloads` counts the "reload everything" events. */
export const lastChange = signal<TicketChange | undefined>(undefined);
export const reloads = signal(0);
export const presence = signal<ReadonlyMap<string, TicketPresence>>(new Map());
/** Whether the stream is connected: undefined while it first connects, false once it was lost (the console says so). */
export const connected = signal<boolean | undefined>(undefined);

let source: EventSource | undefined;

export function connectLive(): void {
  if (source) return;
  source = new EventSource("/agent-api/stream");
  source.addEventListener("open", () => (connected.value = true));
  source.addEventListener("error", () => (connected.value = false));
  source.addEventListener("ready", () => (connected.value = true));
  source.addEventListener("ticket", (event) => {
    lastChange.value = JSON.parse((event as MessageEvent<string>).data) as TicketChange;
  });
  source.addEventListener("incident", () => {
    void loadIncidents().catch(() => undefined);
  });
  source.addEventListener("reload", () => {
    reloads.value++;
    void loadIncidents().catch(() => undefined);
  });
  source.addEventListener("presence", (event) => {
    const update = JSON.parse((event as MessageEvent<string>).data) as TicketPresence;
    const next = new Map(presence.value);
    if (update.agents.length === 0) next.delete(update.ticketId);
    else next.set(update.ticketId, update);
    presence.value = next;
  });
}

export function disconnectLive(): void {
  source?.close();
  source = undefined;
  connected.value = undefined;
  presence.value = new Map();
}
