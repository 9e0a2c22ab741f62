// Applies the actions of one POST /tickets/{id}/actions request to a ticket, in order, without I/O: the result
// is the ticket afterwards plus everything to write (ticket events, domain events, the player
// update). The first invalid action throws, naming its index, and nothing is written: the
// service runs this on the locked row inside the transaction.
import { randomUUID } from "node:crypto";
import type { NewEvent } from "@support/bus";
import { conflict, validationError } from "@support/errors";
import type { NewTicketEvent, RecordedEvent } from "../ticket-events/event.ts";
import { actionPath, referencedUsers, type TicketAction } from "./ticket-actions.ts";
import * as domain from "./domain-events.ts";
import { checkFieldValue, fieldsForGame, tagsForGame, type Definitions } from "./field-values.ts";
import type { TicketChanges } from "./ticket.repository.ts";
import type { Actor, FieldValues, Ticket } from "./ticket.ts";
import { transition, type StateTrigger } from "./ticket-state.ts";

export interface ActionContext {
  now: Date;
  /** The API key of the request: actions without userId are attributed to it. */
  apiKeyId: string | null;
  /**
   * The signed-in user performing the request (the support application): every action is
   * attributed to this user, who must have access to the ticket's game like any userId.
   */
  actingUserId?: string | null | undefined;
  /** Whether a user of the company has access to the ticket's game (looked up before). */
  hasAccess: (userId: string) => boolean;
  /** Tag and field definitions of the company; needed by addTags, removeTags and setFields. */
  definitions: Definitions | undefined;
  /** Who every action is attributed to, whatever the actions say: the service itself (routing). */
  actor?: Actor | undefined;
}

export interface ActionPlan {
  ticket: Ticket;
  changes: TicketChanges;
  events: RecordedEvent[];
  domainEvents: NewEvent[];
  /** Name and/or tier to send to the players service. */
  playerInfo: { name?: string; tier?: number } | undefined;
}

/** An action's attachment ids as the event keeps them, each once (claimed before, in the service). */
function attachmentRefs(ids: readonly string[]): { id: string }[] {
  return [...new Set(ids)].map((id) => ({ id }));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function applyActions(original: Ticket, actions: readonly TicketAction[], context: ActionContext): ActionPlan {
  let ticket: Ticket = { ...original, tags: [...original.tags], fields: { ...original.fields }, metadata: { ...original.metadata } };
  const events: RecordedEvent[] = [];
  const domainEvents: NewEvent[] = [];
  let playerInfo: ActionPlan["playerInfo"];

  const record = (event: NewTicketEvent, actor: Actor): RecordedEvent => {
    const recorded = { ...event, id: randomUUID(), actor } as RecordedEvent;
    events.push(recorded);
    return recorded;
  };

  const actingUserId = context.actingUserId ?? null;
  if (actingUserId !== null && !context.hasAccess(actingUserId)) {
    throw validationError([{ path: "/actingUserId", message: "must be a user of the company with access to the ticket's game" }]);
  }

  actions.forEach((action, index) => {
    for (const { userId, path } of referencedUsers(action, index)) {
      if (!context.hasAccess(userId)) {
        throw validationError([{ path, message: "must be a user of the company with access to the ticket's game" }]);
      }
    }
    const actor: Actor = context.actor !== undefined
      ? context.actor
      : "userId" in action && action.userId !== undefined
        ? { type: "user", id: action.userId }
        : actingUserId !== null
          ? { type: "user", id: actingUserId }
          : { type: "api_key", id: context.apiKeyId };

    // Status, assignee and resolution: the state machine.
    const trigger: StateTrigger = action.type === "setStatus"
      ? { type: "setStatus", status: action.status }
      : action.type === "setOnHold"
        ? { type: "setOnHold", onHold: action.onHold }
        : action.type === "assignTicket"
          ? { type: "assignTicket", assigneeId: action.assigneeId }
          : { type: action.type };
    const result = transition(ticket, trigger, context.now);
    if (!result.ok) throw conflict(`/actions/${index}: ${action.type} is not allowed on a closed ticket`);
    const before = ticket;
    ticket = { ...ticket, ...result.state };
    if (ticket.status !== before.status) {
      record({ type: "STATUS_CHANGED", data: { from: before.status, to: ticket.status } }, actor);
      domainEvents.push(domain.statusChanged(ticket, before.status, actor));
      if (ticket.status === "closed") domainEvents.push(domain.ticketClosed(ticket, context.now, actor));
    }
    if (ticket.assigneeId !== before.assigneeId) {
      record({ type: "ASSIGNEE_CHANGED", data: { from: before.assigneeId, to: ticket.assigneeId } }, actor);
      domainEvents.push(domain.ticketAssigned(ticket, before.assigneeId, actor));
    }

    // What each action records beyond the state.
    switch (action.type) {
      case "addTags":
      case "removeTags": {
        const known = tagsForGame(context.definitions ?? { tags: [], fields: [] }, ticket.gameId);
        action.tagNames.forEach((name, tagIndex) => {
          if (!known.has(name)) {
            throw validationError([{ path: actionPath(index, "tagNames", tagIndex), message: `tag "${name}" is not defined for the ticket's game` }]);
          }
        });
        const added = action.type === "addTags" ? [...new Set(action.tagNames)].filter((name) => !ticket.tags.includes(name)) : [];
        const removed = action.type === "removeTags" ? ticket.tags.filter((name) => action.tagNames.includes(name)) : [];
        if (added.length === 0 && removed.length === 0) break;
        ticket = { ...ticket, tags: [...ticket.tags.filter((name) => !removed.includes(name)), ...added] };
        record({ type: "TAGS_CHANGED", data: { added, removed } }, actor);
        domainEvents.push(domain.tagsChanged(ticket, added, removed, actor));
        break;
      }
      case "setFields": {
        const known = fieldsForGame(context.definitions ?? { tags: [], fields: [] }, ticket.gameId);
        const changed: FieldValues = {};
        for (const [key, value] of Object.entries(action.fields)) {
          const field = known.get(key);
          if (!field) throw validationError([{ path: actionPath(index, "fields", key), message: `field "${key}" is not defined for the ticket's game` }]);
          const checked = checkFieldValue(field, value);
          if (!checked.ok) throw validationError([{ path: actionPath(index, "fields", key), message: checked.reason }]);
          if (!sameValue(ticket.fields[key], checked.value)) changed[key] = checked.value;
        }
        if (Object.keys(changed).length === 0) break;
        ticket = { ...ticket, fields: { ...ticket.fields, ...changed } };
        record({ type: "FIELDS_CHANGED", data: { changed } }, actor);
        domainEvents.push(domain.fieldsChanged(ticket, changed, actor));
        break;
      }
      case "setPlayerInfo": {
        if (ticket.servicePlayerId === null) {
          throw validationError([{ path: actionPath(index, "type"), message: "the ticket has no player to update" }]);
        }
        const { name, tier } = action.player;
        const update = { ...(name !== undefined ? { name } : {}), ...(tier !== undefined ? { tier } : {}) };
        if (Object.keys(update).length === 0) break;
        playerInfo = { ...playerInfo, ...update };
        if (name !== undefined) ticket = { ...ticket, playerName: name };
        if (tier !== undefined) ticket = { ...ticket, metadata: { ...ticket.metadata, playerTier: tier } };
        record({ type: "PLAYER_INFO_CHANGED", data: update }, actor);
        break;
      }
      case "sendMessage": {
        const recorded = record({ type: "AGENT_MESSAGE", data: { message: action.message, language: ticket.language, attachments: attachmentRefs(action.attachments) } }, actor);
        domainEvents.push(domain.messageAdded(ticket, recorded));
        break;
      }
      case "addPrivateNote": {
        const recorded = record({ type: "PRIVATE_NOTE", data: { message: action.message, attachments: attachmentRefs(action.attachments) } }, actor);
        domainEvents.push(domain.messageAdded(ticket, recorded));
        break;
      }
      case "resolveTicket":
      case "rejectTicket":
        record({ type: "END", data: { resolutionType: action.type === "resolveTicket" ? "resolved" : "rejected" } }, actor);
        break;
      default:
        break;
    }
  });

  // Every action updates lastActivityAt.
  ticket = { ...ticket, lastActivityAt: context.now };
  const changes: TicketChanges = {
    status: ticket.status,
    assigneeId: ticket.assigneeId,
    resolutionType: ticket.resolutionType,
    waitingSince: ticket.waitingSince,
    tags: ticket.tags,
    fields: ticket.fields,
    metadata: ticket.metadata,
    playerName: ticket.playerName,
    lastActivityAt: ticket.lastActivityAt,
  };
  return { ticket, changes, events, domainEvents, playerInfo };
}
