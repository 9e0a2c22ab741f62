// Merging a ticket (the source) into another ticket of the same player (the target), without
// I/O: which merges are allowed, and everything the merge writes. The service runs this on both
// rows locked inside one transaction, so a refusal writes nothing.
import { randomUUID } from "node:crypto";
import type { NewEvent } from "@support/bus";
import { conflict, validationError } from "@support/errors";
import type { NewTicketEvent, RecordedEvent, TicketEvent } from "../ticket-events/event.ts";
import * as domain from "./domain-events.ts";
import type { TicketChanges } from "./ticket.repository.ts";
import { transition } from "./ticket-state.ts";
import type { Actor, Ticket } from "./ticket.ts";

/** The path every refusal about the target names (the body of the agent API's merge route). */
export const TARGET_PATH = "/targetTicketId";

/**
 * Whether two tickets are the same player's: the same service player record, or, as the ticket
 * view finds the player's other tickets, the same external player id, else (a ticket without
 * one) the same email, case-insensitively. The game is compared separately.
 */
export function samePlayer(source: Ticket, target: Ticket): boolean {
  if (source.servicePlayerId !== null && source.servicePlayerId === target.servicePlayerId) return true;
  if (source.playerId !== null) return source.playerId === target.playerId;
  return source.email !== null && target.email !== null && source.email.toLowerCase() === target.email.toLowerCase();
}

/**
 * Refuses a merge that is not allowed: into itself, across games or players (400 at
 * /targetTicketId), or of a closed ticket either way (409). A closed source, resolved ones
 * included, stays as it was closed: its END, CSAT and resolution belong to it. A closed target
 * would hide the merged conversation in a ticket nobody works on.
 */
export function checkMerge(source: Ticket, target: Ticket): void {
  if (source.id === target.id) throw validationError([{ path: TARGET_PATH, message: "must be another ticket: a ticket cannot be merged into itself" }]);
  if (source.companyId !== target.companyId) throw new Error("tickets of two companies reached the merge rules");
  if (source.gameId !== target.gameId) throw validationError([{ path: TARGET_PATH, message: "must be a ticket of the same game" }]);
  if (!samePlayer(source, target)) throw validationError([{ path: TARGET_PATH, message: "must be a ticket of the same player" }]);
  if (source.status === "closed") throw conflict(`ticket #${source.runningId} is closed and cannot be merged`);
  if (target.status === "closed") throw conflict(`ticket #${target.runningId} is closed: merge into an open ticket`);
}

/** The conversation events a merge copies: what a ticket's conversation shows, never its END or CSAT (an open source has none). */
const COPIED_TYPES: ReadonlySet<string> = new Set(["PLAYER_MESSAGE", "AGENT_MESSAGE", "PRIVATE_NOTE", "COLLECTOR_RESULT"]);

export interface MergePlan {
  source: { ticket: Ticket; changes: TicketChanges; events: RecordedEvent[] };
  target: { ticket: Ticket; changes: TicketChanges; events: RecordedEvent[] };
  domainEvents: NewEvent[];
}

/**
 * What merging `source` into `target` writes, given the source's public events in order:
 * - the target gets a copy of each conversation event of the source, in the source's order,
 *   with its author and attachments, marked `mergedFrom` (the source, the event's id there and
 *   when it was written: a copy of a copy keeps the first time), then the source's tags it
 *   lacks, then a private note by the merging user;
 * - the source gets a private note by the merging user and is closed as `merged` with
 *   `followUpTicketId` = the target. No END: the public END names resolved, rejected and
 *   auto_closed only; the ticket's resolutionType and followUpTicketId say it was merged.
 * Fields are not merged (the target's values are the ones agents set on the ongoing ticket),
 * and the target's status and assignee stay as they are.
 */
export function planMerge(source: Ticket, target: Ticket, sourceEvents: readonly TicketEvent[], actor: Actor, now: Date): MergePlan {
  checkMerge(source, target);
  const closed = transition(source, { type: "merge" }, now);
  if (!closed.ok) throw conflict(`ticket #${source.runningId} is closed and cannot be merged`);

  const recorded = (event: NewTicketEvent, by: Actor = actor): RecordedEvent => ({ ...event, id: randomUUID(), actor: by }) as RecordedEvent;

  const copies: RecordedEvent[] = sourceEvents.filter((event) => COPIED_TYPES.has(event.type)).map((event) => {
    const original = "mergedFrom" in event.data ? event.data.mergedFrom : undefined;
    const mergedFrom = {
      ticketId: source.id,
      runningId: source.runningId,
      eventId: event.id,
      createdAt: original?.createdAt ?? event.createdAt.toISOString(),
    };
    return recorded({ type: event.type, data: { ...event.data, mergedFrom } } as NewTicketEvent, event.actor);
  });
  const addedTags = source.tags.filter((tag, index) => !target.tags.includes(tag) && source.tags.indexOf(tag) === index);
  const targetEvents = [
    ...copies,
    ...(addedTags.length > 0 ? [recorded({ type: "TAGS_CHANGED", data: { added: addedTags, removed: [] } })] : []),
    recorded({ type: "PRIVATE_NOTE", data: { message: `Merged #${source.runningId} into this ticket.`, attachments: [] } }),
  ];
  const lastPlayerMessageAt = [source.lastPlayerMessageAt, target.lastPlayerMessageAt]
    .filter((at): at is Date => at !== null)
    .reduce<Date | null>((latest, at) => (latest === null || at > latest ? at : latest), null);
  const mergedTarget: Ticket = { ...target, tags: [...target.tags, ...addedTags], lastActivityAt: now, lastPlayerMessageAt };

  const mergedSource: Ticket = { ...source, ...closed.state, followUpTicketId: target.id, lastActivityAt: now };
  const sourceEventsWritten = [
    recorded({ type: "PRIVATE_NOTE", data: { message: `Merged into #${target.runningId}.`, attachments: [] } }),
    recorded({ type: "STATUS_CHANGED", data: { from: source.status, to: mergedSource.status } }),
  ];

  return {
    source: {
      ticket: mergedSource,
      changes: {
        status: mergedSource.status,
        resolutionType: mergedSource.resolutionType,
        waitingSince: mergedSource.waitingSince,
        followUpTicketId: target.id,
        lastActivityAt: now,
      },
      events: sourceEventsWritten,
    },
    target: {
      ticket: mergedTarget,
      changes: { tags: mergedTarget.tags, lastActivityAt: now, lastPlayerMessageAt },
      events: targetEvents,
    },
    domainEvents: [
      domain.statusChanged(mergedSource, source.status, actor),
      domain.ticketClosed(mergedSource, now, actor),
      ...(addedTags.length > 0 ? [domain.tagsChanged(mergedTarget, addedTags, [], actor)] : []),
      domain.ticketMerged(mergedSource, mergedTarget, copies.length, addedTags, actor),
    ],
  };
}
