// Who is on a ticket: the agents viewing it and who of them is typing a reply, shown to the
// other agents of the company within a second whichever gateway replica they are connected to.
// A replica publishes what its agents say on NATS (a plain core subject: presence is of the
// moment, nothing to replay) and every replica, itself included, keeps the board of its
// companies and tells its open agent streams. An entry lasts as long as the console keeps
// saying it (viewing for 30 s, typing for 8 s after the last word); "left" ends it at once.
import type { NatsConnection } from "@support/bus";
import type { Logger } from "@support/logging";
import { KeyedListeners } from "../keyed-listeners.ts";

export type PresenceState = "viewing" | "typing" | "left";

export interface PresenceAnnouncement {
  companyId: string;
  gameId: string;
  ticketId: string;
  userId: string;
  displayName: string;
  state: PresenceState;
}

/** The agents on one ticket, as the streams send it. */
export interface TicketPresence {
  ticketId: string;
  gameId: string;
  agents: { userId: string; displayName: string; state: "viewing" | "typing" }[];
}

export type PresenceListener = (presence: TicketPresence) => void;

/** How long a "viewing" and a "typing" last without being said again. */
export const VIEWING_TTL_MS = 30_000;
export const TYPING_TTL_MS = 8_000;

interface Entry {
  displayName: string;
  viewingUntil: number;
  typingUntil: number;
}

interface TicketBoard {
  companyId: string;
  gameId: string;
  entries: Map<string, Entry>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isAnnouncement(value: unknown): value is PresenceAnnouncement {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    ["companyId", "gameId", "ticketId", "userId"].every((key) => typeof v[key] === "string" && UUID.test(v[key])) &&
    typeof v.displayName === "string" &&
    (v.state === "viewing" || v.state === "typing" || v.state === "left")
  );
}

export interface PresenceBoardSettings {
  nc: NatsConnection;
  natsPrefix: string;
  logger: Logger;
  clock?: () => number;
  /** How often expired entries are swept (and their tickets' presence sent again). */
  sweepMs?: number;
}

export class PresenceBoard {
  private readonly settings: PresenceBoardSettings;
  private readonly subject: string;
  private readonly clock: () => number;
  private readonly tickets = new Map<string, TicketBoard>();
  private readonly listeners = new KeyedListeners<TicketPresence>();
  private subscription: ReturnType<NatsConnection["subscribe"]> | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(settings: PresenceBoardSettings) {
    this.settings = settings;
    this.subject = `${settings.natsPrefix}gateway.agent_presence`;
    this.clock = settings.clock ?? Date.now;
  }

  start(): void {
    const subscription = this.settings.nc.subscribe(this.subject);
    this.subscription = subscription;
    void (async () => {
      for await (const message of subscription) {
        let value: unknown;
        try {
          value = JSON.parse(new TextDecoder().decode(message.data));
        } catch {
          value = undefined;
        }
        if (isAnnouncement(value)) this.apply(value);
        else this.settings.logger.warn({ subject: message.subject }, "agent presence message not understood: dropped");
      }
    })();
    this.sweeper = setInterval(() => this.sweep(), this.settings.sweepMs ?? 1000);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.subscription?.unsubscribe();
  }

  /** What an agent of this replica says: sent to every replica, this one included. */
  announce(announcement: PresenceAnnouncement): void {
    this.settings.nc.publish(this.subject, JSON.stringify(announcement));
  }

  /** Calls `listener` with a ticket's presence whenever it changes, for the company's tickets. */
  listen(companyId: string, listener: PresenceListener): () => void {
    return this.listeners.add(companyId, listener);
  }

  /** The company's tickets that someone is on now. */
  snapshot(companyId: string): TicketPresence[] {
    const now = this.clock();
    return [...this.tickets.entries()]
      .filter(([, board]) => board.companyId === companyId)
      .map(([ticketId, board]) => this.presenceOf(ticketId, board, now))
      .filter((presence) => presence.agents.length > 0);
  }

  private apply(announcement: PresenceAnnouncement): void {
    const now = this.clock();
    let board = this.tickets.get(announcement.ticketId);
    if (!board) {
      if (announcement.state === "left") return;
      board = { companyId: announcement.companyId, gameId: announcement.gameId, entries: new Map() };
      this.tickets.set(announcement.ticketId, board);
    }
    // A ticket belongs to one company and game: an announcement that says otherwise is not about it.
    if (board.companyId !== announcement.companyId || board.gameId !== announcement.gameId) return;
    if (announcement.state === "left") {
      if (!board.entries.delete(announcement.userId)) return;
    } else {
      const entry = board.entries.get(announcement.userId) ?? { displayName: announcement.displayName, viewingUntil: 0, typingUntil: 0 };
      entry.displayName = announcement.displayName;
      entry.viewingUntil = Math.max(entry.viewingUntil, now + VIEWING_TTL_MS);
      entry.typingUntil = announcement.state === "typing" ? now + TYPING_TTL_MS : 0;
      board.entries.set(announcement.userId, entry);
    }
    this.changed(announcement.ticketId, board, now);
  }

  /** Removes what was not said again in time, and tells the streams of each ticket that changed. */
  sweep(): void {
    const now = this.clock();
    for (const [ticketId, board] of this.tickets) {
      let changed = false;
      for (const [userId, entry] of board.entries) {
        if (entry.viewingUntil <= now) {
          board.entries.delete(userId);
          changed = true;
        } else if (entry.typingUntil !== 0 && entry.typingUntil <= now) {
          entry.typingUntil = 0;
          changed = true;
        }
      }
      if (changed) this.changed(ticketId, board, now);
    }
  }

  private changed(ticketId: string, board: TicketBoard, now: number): void {
    const presence = this.presenceOf(ticketId, board, now);
    if (board.entries.size === 0) this.tickets.delete(ticketId);
    this.listeners.emit(board.companyId, presence);
  }

  private presenceOf(ticketId: string, board: TicketBoard, now: number): TicketPresence {
    const agents = [...board.entries.entries()]
      .filter(([, entry]) => entry.viewingUntil > now)
      .map(([userId, entry]) => ({ userId, displayName: entry.displayName, state: entry.typingUntil > now ? ("typing" as const) : ("viewing" as const) }))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
    return { ticketId, gameId: board.gameId, agents };
  }
}
