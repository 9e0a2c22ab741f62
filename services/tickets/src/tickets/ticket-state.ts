// The ticket state machine, in one pure function: which status a
// ticket moves to on each trigger, what happens to its assignee, resolution and waiting clock,
// and which triggers a closed ticket refuses (409). No I/O: the service applies the result.
import type { ResolutionType, TicketStatus } from "./ticket.ts";

export interface TicketState {
  status: TicketStatus;
  assigneeId: string | null;
  resolutionType: ResolutionType | null;
  /** When the ticket entered `waiting` (the auto-close clock); null in any other status. */
  waitingSince: Date | null;
}

/** What can happen to a ticket: the twelve ticket actions plus the player side and time. */
export type StateTrigger =
  | { type: "setStatus"; status: "waiting" | "assigned" }
  | { type: "setOnHold"; onHold: boolean }
  | { type: "sendMessage" }
  | { type: "resolveTicket" }
  | { type: "rejectTicket" }
  | { type: "assignTicket"; assigneeId: string }
  | { type: "unassignTicket" }
  | { type: "addTags" }
  | { type: "removeTags" }
  | { type: "setFields" }
  | { type: "addPrivateNote" }
  | { type: "setPlayerInfo" }
  /** A player message: a waiting ticket is answered. */
  | { type: "playerMessage" }
  /** The auto-close sweep: a waiting ticket waited too long. */
  | { type: "autoClose" }
  /** The ticket is merged into another one (the support application). */
  | { type: "merge" };

export type TransitionResult =
  | { ok: true; state: TicketState }
  /** `closed`: the trigger is refused on a closed ticket (409). `not_waiting`: nothing to auto-close. */
  | { ok: false; reason: "closed" | "not_waiting" };

/** Triggers that a closed ticket refuses with 409. Everything else is allowed on it. */
export const REFUSED_WHEN_CLOSED: ReadonlySet<StateTrigger["type"]> = new Set([
  "setStatus", "setOnHold", "sendMessage", "resolveTicket", "rejectTicket", "merge",
]);

/** Whether a ticket is open (any status but closed). */
export function isOpen(status: TicketStatus): boolean {
  return status !== "closed";
}

/** `assigned` with an assignee, `unassigned` without: the rule every "back to work" move uses. */
export function workingStatus(assigneeId: string | null): TicketStatus {
  return assigneeId === null ? "unassigned" : "assigned";
}

function withStatus(state: TicketState, status: TicketStatus, now: Date, changes: Partial<TicketState> = {}): TicketState {
  const next = { ...state, ...changes, status };
  // The waiting clock starts when a ticket enters waiting and is kept while it stays there.
  next.waitingSince = status === "waiting" ? (state.status === "waiting" ? state.waitingSince : now) : null;
  return next;
}

export function transition(state: TicketState, trigger: StateTrigger, now: Date): TransitionResult {
  const closed = state.status === "closed";
  if (closed && REFUSED_WHEN_CLOSED.has(trigger.type)) return { ok: false, reason: "closed" };

  switch (trigger.type) {
    case "setStatus":
      return { ok: true, state: withStatus(state, trigger.status === "waiting" ? "waiting" : workingStatus(state.assigneeId), now) };

    case "setOnHold":
      if (trigger.onHold) return { ok: true, state: withStatus(state, "on_hold", now) };
      // Taking a ticket off hold that is not on hold changes nothing.
      return { ok: true, state: state.status === "on_hold" ? withStatus(state, workingStatus(state.assigneeId), now) : state };

    case "sendMessage":
      return { ok: true, state: state.status === "new" ? withStatus(state, workingStatus(state.assigneeId), now) : state };

    case "resolveTicket":
      return { ok: true, state: withStatus(state, "closed", now, { resolutionType: "resolved" }) };

    case "rejectTicket":
      return { ok: true, state: withStatus(state, "closed", now, { resolutionType: "rejected" }) };

    case "assignTicket": {
      const assigneeId = trigger.assigneeId;
      // new/unassigned/assigned become assigned; waiting, on_hold and closed keep their status.
      const moves = state.status === "new" || state.status === "unassigned" || state.status === "assigned";
      return { ok: true, state: withStatus(state, moves ? "assigned" : state.status, now, { assigneeId }) };
    }

    case "unassignTicket":
      return {
        ok: true,
        state: withStatus(state, state.status === "assigned" ? "unassigned" : state.status, now, { assigneeId: null }),
      };

    case "playerMessage":
      return { ok: true, state: state.status === "waiting" ? withStatus(state, workingStatus(state.assigneeId), now) : state };

    case "autoClose":
      if (state.status !== "waiting") return { ok: false, reason: "not_waiting" };
      return { ok: true, state: withStatus(state, "closed", now, { resolutionType: "auto_closed" }) };

    case "merge":
      return { ok: true, state: withStatus(state, "closed", now, { resolutionType: "merged" }) };

    case "addTags":
    case "removeTags":
    case "setFields":
    case "addPrivateNote":
    case "setPlayerInfo":
      return { ok: true, state };
  }
}

/**
 * Whether a waiting ticket is due for auto-close at `now`: no player message and no entering
 * of waiting within `hours`.
 */
export function isDueForAutoClose(
  ticket: { status: TicketStatus; waitingSince: Date | null; lastPlayerMessageAt: Date | null },
  hours: number,
  now: Date,
): boolean {
  if (ticket.status !== "waiting" || ticket.waitingSince === null) return false;
  const since = Math.max(ticket.waitingSince.getTime(), ticket.lastPlayerMessageAt?.getTime() ?? 0);
  return now.getTime() - since >= hours * 3_600_000;
}
