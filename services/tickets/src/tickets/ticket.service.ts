// Ticket use cases: create, list, get, perform actions and auto-close.
// Each opens its transaction, calls the rules and the repository, and writes its domain
// events to the outbox in that same transaction. Calls to other services happen before the
// transaction (or, for the player update, last inside it) so that row locks stay short; the
// ones that write (resolving the player) come after every check that can refuse the request.
import { randomUUID } from "node:crypto";
import { writeEvents } from "@support/bus";
import type { Kysely } from "@support/db";
import type { TicketsDatabase } from "../database.ts";
import { AppError, failedPrecondition, isAppError, isUuid, notFound, validationError } from "@support/errors";
import { recordSessionTicket, setLastPlayerMessageAt, shareSessionTickets } from "../player-side/player-side.repository.ts";
import type { AttachmentClaim, TicketsContext } from "../context.ts";
import type { RecordedEvent } from "../ticket-events/event.ts";
import { insertEvents, listPublicEvents } from "../ticket-events/event.repository.ts";
import { AGENT_VIEWS, parseAgentListQuery, viewConditions, type AgentView, type RawAgentListQuery } from "./agent-list.ts";
import { applyActions } from "./apply-actions.ts";
import { encodeCursor } from "./cursor.ts";
import * as domain from "./domain-events.ts";
import { DUPLICATE_SIMILARITY_THRESHOLD, normalizeMessage } from "./duplicate.ts";
import { acceptMetadata, fieldsForGame, tagsForGame, type Definitions } from "./field-values.ts";
import { parseListQuery, type RawListQuery } from "./list-query.ts";
import { checkMerge, planMerge, TARGET_PATH } from "./merge.ts";
import { checkNewTicket, recordHoldsContact, type UncheckedNewTicket } from "./new-ticket.ts";
import {
  countAgentViews as countAgentViewRows, dueWaitingTicketIds, findCreationObstacles, findTicket, insertTicket, listAgentTickets as listAgentTicketRows, searchEventHits,
  listTickets as listTicketRows,
  lockPlayerForCreation, lockTicketPair, lockWaitingTicket, setFollowUpTicket, updateTicket,
} from "./ticket.repository.ts";
import { ticketMatch, type TicketMatch } from "./search.ts";
import { checkActions, referencedUsers, type TicketAction, type TicketActionInput } from "./ticket-actions.ts";
import { isDueForAutoClose, transition } from "./ticket-state.ts";
import { firstPlayerMessages, readTimes, upsertRead } from "../reads/ticket-read.repository.ts";
import { isUnread, subjectOf } from "../reads/ticket-read.ts";
import { ticketUrl, type Actor, type FieldValues, type Ticket } from "./ticket.ts";

/**
 * The player's data is being erased: the record ResolvePlayer returned is about to go, so
 * a ticket for it would escape the erasure. Once the erasure completes, the next contact
 * creates a new player record.
 */
function playerBeingErased(): AppError {
  return new AppError("unavailable", "The player's data is being deleted; try again shortly");
}

export function playerBlocked(): AppError {
  return failedPrecondition("The player is blocked from contacting support", { type: "PLAYER_BLOCKED" });
}

function duplicateOpenTicket(duplicateConversationId: string): AppError {
  return failedPrecondition("The player already has a similar open ticket", {
    type: "DUPLICATE_OPEN_TICKET_DETECTED",
    payload: { duplicateConversationId },
  });
}

/**
 * The attachments must be completed uploads of the same company and game. Media
 * checks every id and marks them used (linked to the ticket and its player, so that the
 * player's erasure finds them); its INVALID_ARGUMENT names each bad id as `/attachments/<i>`
 * and passes through unchanged. Ids in request order, each once. Without a player (one not
 * created yet) the claim links none; claiming again with one links it.
 */
export async function claimAttachments(ctx: TicketsContext, claim: AttachmentClaim): Promise<{ id: string }[]> {
  if (claim.attachmentIds.length === 0) return [];
  const claimed = await ctx.media.claimAttachments(claim);
  return [...new Set(claimed)].map((id) => ({ id }));
}

/**
 * The attachments of an agent's messages and notes, claimed in one call for the ticket: the
 * company's uploads (the API key's and its users', so no session), of the ticket's game, not used
 * by another ticket, complete. Media names a bad id by its place in the one list; the refusal
 * names it in the request (`/actions/<i>/attachments/<j>`). Nothing of the ticket is written yet.
 */
async function claimActionAttachments(ctx: TicketsContext, ticket: Ticket, actions: readonly TicketAction[]): Promise<void> {
  const places: string[] = [];
  const attachmentIds: string[] = [];
  actions.forEach((action, index) => {
    if (action.type !== "sendMessage" && action.type !== "addPrivateNote") return;
    action.attachments.forEach((id, position) => {
      places.push(`/actions/${index}/attachments/${position}`);
      attachmentIds.push(id);
    });
  });
  try {
    await claimAttachments(ctx, {
      companyId: ticket.companyId, gameId: ticket.gameId, ticketId: ticket.id, servicePlayerId: ticket.servicePlayerId ?? undefined, attachmentIds,
    });
  } catch (error) {
    const issues = isAppError(error) ? error.details?.issues : undefined;
    if (!issues) throw error;
    throw validationError(issues.map((issue) => ({ ...issue, path: issue.path.replace(/^\/attachments\/(\d+)/, (path, at: string) => places[Number(at)] ?? path) })));
  }
}

/**
 * Opens a ticket with the player's first message, whichever source (the REST API or the web
 * support page) asks: checks the request, keeps only the tags and fields the game defines, looks
 * the player up (by external id, else email) to refuse blocked players, players being erased and
 * duplicates, claims the attachments, and only then resolves the player (creating it, or storing
 * the request's name, email and tier) and inserts the ticket, its PLAYER_MESSAGE and their domain
 * events. A refused request changes no player.
 */
export async function createTicket(ctx: TicketsContext, request: UncheckedNewTicket): Promise<{ ticketId: string; runningId: number; messageEventId: string }> {
  const ticket = checkNewTicket(request);
  const { companyId } = ticket;

  const game = await ctx.reference.getGame(companyId, ticket.gameId);
  const gameEnvironmentId =
    ticket.environmentId === null ? game.environmentIds[0] : game.environmentIds.find((id) => id === ticket.environmentId);
  if (gameEnvironmentId === undefined) throw notFound("game not found");

  // Metadata from game clients is taken leniently: what the game does not define is dropped and logged.
  const definitions = await ctx.reference.getDefinitions(companyId);
  const metadata = acceptMetadata(definitions, game.id, ticket.tags, ticket.fields);
  if (metadata.ignored.length > 0) {
    ctx.logger.info(
      { companyId, gameId: game.id, supportSource: ticket.supportSource, ignored: metadata.ignored },
      "ignored ticket metadata that the game does not define",
    );
  }

  // Every check that can refuse the request runs before the player is resolved, so that a
  // refused creation leaves the player and its events untouched. The lookup writes nothing,
  // and a player not known yet can be neither blocked, nor being erased, nor have an open ticket.
  const contact = { companyId, gameId: game.id, ...ticket.player };
  const normalizedMessage = normalizeMessage(ticket.message);
  // The player being erased refuses the request before a duplicate does.
  const refuseIfObstructed = async (db: typeof ctx.db, servicePlayerId: string) => {
    const obstacles = await findCreationObstacles(db, {
      companyId, gameId: game.id, servicePlayerId, normalizedMessage, threshold: DUPLICATE_SIMILARITY_THRESHOLD, checkDuplicate: !ticket.skipDuplicateCheck,
    });
    if (obstacles.erased) throw playerBeingErased();
    if (obstacles.duplicateId !== undefined) throw duplicateOpenTicket(obstacles.duplicateId);
  };
  const known = await ctx.players.findPlayer(contact);
  if (known !== undefined) {
    if (known.blocked) throw playerBlocked();
    // Checked again under the lock below; this early check keeps attachments from being claimed
    // for a player whose erasure has passed the tickets step.
    await refuseIfObstructed(ctx.db, known.id);
  }

  // The id is chosen here so that media records which ticket uses the attachments. A bad id
  // refuses the request before the player is touched; a new player is linked once it exists.
  const ticketId = randomUUID();
  const sessionId = ticket.sessionId ?? undefined;
  const attachments = await claimAttachments(ctx, {
    companyId, gameId: game.id, ticketId, servicePlayerId: known?.id, sessionId, attachmentIds: ticket.attachmentIds,
  });

  // A returning player whose record already holds what the request says is not resolved again
  // (it would change nothing): the lookup above is the player.
  const player = known !== undefined && recordHoldsContact(known, ticket.player) ? known : await ctx.players.resolvePlayer(contact);
  // Blocked since the lookup: still refused, though the request's name, email or tier are stored.
  if (player.blocked) throw playerBlocked();
  // The looked-up record was erased since (and this contact created a new one): the attachments
  // are linked to the erased record, so the request is refused like one during the erasure.
  if (known !== undefined && known.id !== player.id) throw playerBeingErased();
  if (known === undefined && attachments.length > 0) {
    await claimAttachments(ctx, { companyId, gameId: game.id, ticketId, servicePlayerId: player.id, sessionId, attachmentIds: ticket.attachmentIds });
  }

  // An identified player (with an id) is tier 1 unless a tier is known.
  const tier = ticket.player.tier ?? player.tier ?? (ticket.player.externalId !== null ? 1 : null);
  const ticketMetadata: FieldValues = {
    platform: ticket.platform,
    ...(tier !== null ? { playerTier: tier } : {}),
    ...(ticket.article !== null ? { articleKey: ticket.article.key, articleTitle: ticket.article.title } : {}),
  };

  return ctx.db.transaction().execute(async (trx) => {
    // The per-player lock also orders this creation with the player's erasure: either the
    // erasure runs later and deletes the ticket, or it ran first and the mark is seen here.
    // Under it, the duplicate check is final: two identical requests sent at once (both past
    // the early check) cannot both create a ticket.
    // The checks read after the lock is granted (a statement of their own, so they see what
    // the transaction that held it committed).
    await lockPlayerForCreation(trx, companyId, player.id);
    await refuseIfObstructed(trx, player.id);
    const message: RecordedEvent = {
      id: randomUUID(),
      type: "PLAYER_MESSAGE",
      data: { message: ticket.message, language: ticket.language, attachments },
      actor: { type: "player", id: player.id },
    };
    // The first insert: the counter row lock is held from here to commit. The ticket as opened:
    // what the request leaves unsaid of the player comes from its record, and the game's
    // definitions chose the tags and fields.
    const inserted = await insertTicket(trx, {
      ...ticket,
      gameId: game.id,
      player: { ...ticket.player, name: ticket.player.name ?? player.name, email: ticket.player.email ?? player.email },
      tags: metadata.tags,
      fields: metadata.fields,
    }, {
      id: ticketId,
      gameEnvironmentId,
      servicePlayerId: player.id,
      status: "new",
      metadata: ticketMetadata,
      firstMessageNormalized: normalizedMessage,
    }, [message]);
    if (ticket.sessionId !== null) await recordSessionTicket(trx, ticket.sessionId, inserted.id);
    // The closed ticket points at its follow-up (the first one, if answered twice meanwhile).
    if (ticket.reopenedFromTicketId !== null) await setFollowUpTicket(trx, companyId, ticket.reopenedFromTicketId, inserted.id);
    await writeEvents(trx, [domain.ticketCreated(inserted, ticketUrl(ctx.supportAppUrl, inserted.id)), domain.messageAdded(inserted, message)]);
    return { ticketId: inserted.id, runningId: inserted.runningId, messageEventId: message.id };
  });
}

/**
 * Appends the player's message to an open ticket (from the page, `chat`, or by mail, `email`),
 * attachments already claimed: a waiting ticket goes back to work; a ticket closed meanwhile refuses it (409).
 */
export async function appendPlayerMessage(
  ctx: Pick<TicketsContext, "db">,
  current: Pick<Ticket, "companyId" | "id">,
  text: string,
  attachments: { id: string }[],
  channel: "chat" | "email",
): Promise<{ ticket: Ticket; eventId: string }> {
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await findTicket(trx, current.companyId, current.id, true);
    if (!locked) throw notFound("ticket not found");
    const now = new Date();
    const result = transition(locked, { type: "playerMessage" }, now);
    if (!result.ok || locked.status === "closed") throw new AppError("conflict", "The ticket is closed");
    const actor: Actor = { type: "player", id: locked.servicePlayerId };
    let updated = await updateTicket(trx, locked.id, { status: result.state.status, waitingSince: result.state.waitingSince, lastActivityAt: now });
    await setLastPlayerMessageAt(trx, locked.id, now);
    updated = { ...updated, lastPlayerMessageAt: now, lastActivityAt: now };
    const message: RecordedEvent = { id: randomUUID(), type: "PLAYER_MESSAGE", data: { message: text, language: locked.language, attachments }, actor };
    const recorded: RecordedEvent[] = [message];
    const outbox = [domain.messageAdded(updated, message, channel)];
    if (updated.status !== locked.status) {
      recorded.unshift({ id: randomUUID(), type: "STATUS_CHANGED", data: { from: locked.status, to: updated.status }, actor });
      outbox.unshift(domain.statusChanged(updated, locked.status, actor));
    }
    await insertEvents(trx, locked, recorded);
    await writeEvents(trx, outbox);
    return { ticket: updated, eventId: message.id };
  });
}

export async function getTicket(ctx: TicketsContext, companyId: string, ticketId: string): Promise<Ticket> {
  const ticket = isUuid(ticketId) ? await findTicket(ctx.db, companyId, ticketId.toLowerCase()) : undefined;
  if (!ticket) throw notFound("ticket not found");
  return ticket;
}

export async function listTickets(
  ctx: TicketsContext,
  companyId: string,
  raw: RawListQuery,
): Promise<{ tickets: Ticket[]; nextCursor: string | null }> {
  const query = parseListQuery(raw, { companyId, cursorSecret: ctx.cursorSecret });
  const rows = await listTicketRows(ctx.db, companyId, query);
  const tickets = rows.slice(0, query.limit);
  const last = tickets.at(-1);
  const nextCursor = rows.length > query.limit && last
    ? encodeCursor(ctx.cursorSecret, companyId, query.order, { createdAt: last.createdAt, runningId: last.runningId })
    : null;
  return { tickets, nextCursor };
}

/**
 * One page of an agent list: the public list's filters plus the agents' (agent-list.ts), only of
 * the user's games, sorted by creation or last activity. The cursor is bound to the company, the
 * order and the sort.
 */
export async function listAgentTickets(
  ctx: TicketsContext,
  companyId: string,
  input: { userId: string; gameIds: readonly string[]; raw: RawAgentListQuery; now?: Date },
): Promise<{ tickets: Ticket[]; nextCursor: string | null; matches: Map<string, TicketMatch>; summaries: Map<string, { subject: string; unread: boolean; slaDueAt: Date | null }> }> {
  const userId = checkedUserId(input.userId);
  const query = parseAgentListQuery(input.raw, { companyId, userId, gameIds: input.gameIds, cursorSecret: ctx.cursorSecret, now: input.now ?? new Date() });
  if (query.gameIds.length === 0) return { tickets: [], nextCursor: null, matches: new Map(), summaries: new Map() };
  const rows = await listAgentTicketRows(ctx.db, companyId, query);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor = rows.length > query.limit && last
    ? encodeCursor(ctx.cursorSecret, companyId, query.order, { createdAt: last.sortedAt, runningId: last.ticket.runningId }, query.sort)
    : null;
  const tickets = page.map((row) => row.ticket);
  const matches = new Map<string, TicketMatch>();
  const { search } = query;
  if (search !== undefined) {
    const hits = new Map((await searchEventHits(ctx.db, tickets.map((ticket) => ticket.id), search.words)).map((hit) => [hit.ticketId, hit]));
    for (const ticket of tickets) {
      const match = ticketMatch(search, ticket, hits.get(ticket.id));
      if (match !== null) matches.set(ticket.id, match);
    }
  }
  const ids = tickets.map((ticket) => ticket.id);
  const [firsts, reads] = await Promise.all([firstPlayerMessages(ctx.db, ids), readTimes(ctx.db, userId, ids)]);
  const dues = new Map(page.map((row) => [row.ticket.id, row.slaDueAt]));
  const summaries = new Map(
    tickets.map((ticket) => [ticket.id, { subject: subjectOf(firsts.get(ticket.id) ?? ""), unread: isUnread(ticket.lastPlayerMessageAt, reads.get(ticket.id)), slaDueAt: dues.get(ticket.id) ?? null }]),
  );
  return { tickets, nextCursor, matches, summaries };
}

/** Records that the user looked at the ticket now; not found for another company's ticket. */
export async function markTicketRead(ctx: Pick<TicketsContext, "db">, companyId: string, input: { ticketId: string; userId: string; now?: Date }): Promise<void> {
  const userId = checkedUserId(input.userId);
  const ticket = isUuid(companyId) && isUuid(input.ticketId) ? await findTicket(ctx.db, companyId.toLowerCase(), input.ticketId.toLowerCase()) : undefined;
  if (!ticket) throw notFound("ticket not found");
  await upsertRead(ctx.db, { companyId: ticket.companyId, userId, ticketId: ticket.id, at: input.now ?? new Date() });
}

/** How many tickets each built-in view lists for the user, in AGENT_VIEWS order. */
export async function countAgentViews(
  ctx: TicketsContext,
  companyId: string,
  input: { userId: string; gameIds: readonly string[]; now?: Date },
): Promise<{ view: AgentView; count: number }[]> {
  const userId = checkedUserId(input.userId);
  const now = input.now ?? new Date();
  const gameIds = input.gameIds.filter(isUuid).map((id) => id.toLowerCase());
  const views = AGENT_VIEWS.map((view) => ({ name: view, conditions: viewConditions(view, userId, now) }));
  const counts = gameIds.length === 0 ? {} : await countAgentViewRows(ctx.db, companyId, gameIds, views);
  return AGENT_VIEWS.map((view) => ({ view, count: Number(counts[view] ?? 0) }));
}

function checkedUserId(userId: string): string {
  if (!isUuid(userId)) throw validationError([{ path: "/userId", message: "must be a uuid" }]);
  return userId.toLowerCase();
}

/** Whether an action names a tag or field key the (possibly stale) definitions do not know. */
function namesUnknownDefinition(actions: readonly TicketAction[], definitions: Definitions, gameId: string): boolean {
  const tags = tagsForGame(definitions, gameId);
  const fields = fieldsForGame(definitions, gameId);
  return actions.some((action) =>
    action.type === "addTags" || action.type === "removeTags"
      ? action.tagNames.some((name) => !tags.has(name))
      : action.type === "setFields"
        ? Object.keys(action.fields).some((key) => !fields.has(key))
        : false,
  );
}

export async function performTicketActions(
  ctx: TicketsContext,
  input: {
    companyId: string;
    ticketId: string;
    actions: TicketActionInput[];
    apiKeyId: string | null;
    actingUserId?: string | null;
    /** Runs in the actions' transaction after they are written (the triage marks its suggestion applied there). */
    afterApply?: (trx: Kysely<TicketsDatabase>, ticket: Ticket) => Promise<void>;
  },
): Promise<Ticket> {
  const actingUserId = input.actingUserId ? input.actingUserId.toLowerCase() : null;
  const actions = checkActions(input.actions, { actingUserId });
  const { companyId } = input;

  // Read-only lookups before the row lock: who may act on the ticket's game (its game never
  // changes), and the definitions for the strict tag/field checks. They need the ticket's game,
  // read first; actions that need neither read the ticket once, under the lock.
  const userIds = [
    ...new Set([
      ...(actingUserId !== null ? [actingUserId] : []),
      ...actions.flatMap((action, index) => referencedUsers(action, index).map((user) => user.userId)),
    ]),
  ];
  const namesDefinitions = actions.some((action) => action.type === "addTags" || action.type === "removeTags" || action.type === "setFields");
  const attaches = actions.some((action) => (action.type === "sendMessage" || action.type === "addPrivateNote") && action.attachments.length > 0);
  if (!isUuid(input.ticketId)) throw notFound("ticket not found");
  const ticketId = input.ticketId.toLowerCase();
  const current = userIds.length > 0 || namesDefinitions || attaches ? await getTicket(ctx, companyId, ticketId) : undefined;
  const gameId = current?.gameId;
  // Claimed before the transaction, as a player's message does (a note may go on a closed
  // ticket too). When the transaction then refuses the request, they stay claimed for this
  // ticket, and a retry on it may claim them again.
  if (attaches && current !== undefined) await claimActionAttachments(ctx, current, actions);
  const access = new Map(
    await Promise.all(userIds.map(async (userId) => [userId, await ctx.reference.hasGameAccess(companyId, userId, gameId!)] as const)),
  );
  let definitions: Definitions | undefined;
  if (namesDefinitions) {
    definitions = await ctx.reference.getDefinitions(companyId);
    // Agents are strict; a tag defined a moment ago must not be refused because of the cache.
    if (namesUnknownDefinition(actions, definitions, gameId!)) definitions = await ctx.reference.getDefinitions(companyId, { fresh: true });
  }

  return ctx.db.transaction().execute(async (trx) => {
    // The row lock serialises concurrent action requests on one ticket.
    const locked = await findTicket(trx, companyId, ticketId, true);
    if (!locked) throw notFound("ticket not found");
    const plan = applyActions(locked, actions, {
      now: new Date(),
      apiKeyId: input.apiKeyId,
      actingUserId,
      hasAccess: (userId) => access.get(userId) === true,
      definitions,
    });
    const updated = await updateTicket(trx, locked.id, plan.changes, { ticket: locked, events: plan.events });
    await writeEvents(trx, plan.domainEvents);
    if (input.afterApply) await input.afterApply(trx, updated);
    // Last, so that a failure of any earlier step leaves the player untouched; a failure here
    // rolls the ticket back.
    if (plan.playerInfo && locked.servicePlayerId !== null) {
      const playerId = locked.servicePlayerId;
      await ctx.players.setPlayerInfo(companyId, playerId, plan.playerInfo);
    }
    return updated;
  });
}

/**
 * Merges the source ticket into the target (merge.ts has the rules and what is written), as the
 * signed-in user, who must have access to the tickets' game. Both rows are locked (in id order)
 * and checked again under the locks; the copies, notes, tags, the source's closing, the sessions
 * that follow the source and the outbox events are written in that one transaction, so a refusal
 * or a failure leaves both tickets as they were.
 */
export async function mergeTickets(
  ctx: TicketsContext,
  input: { companyId: string; sourceTicketId: string; targetTicketId: string; actingUserId: string },
): Promise<{ source: Ticket; target: Ticket }> {
  const { companyId } = input;
  if (!isUuid(input.actingUserId)) throw validationError([{ path: "/actingUserId", message: "must be a uuid" }]);
  if (!isUuid(input.targetTicketId)) throw validationError([{ path: TARGET_PATH, message: "must be a uuid" }]);
  const actingUserId = input.actingUserId.toLowerCase();
  const source = await getTicket(ctx, companyId, input.sourceTicketId);
  const target = await findTicket(ctx.db, companyId, input.targetTicketId.toLowerCase());
  if (!target) throw notFound("target ticket not found");
  // The rules first (they need no other service), then who may merge.
  checkMerge(source, target);
  if (!(await ctx.reference.hasGameAccess(companyId, actingUserId, source.gameId))) {
    throw validationError([{ path: "/actingUserId", message: "must be a user of the company with access to the ticket's game" }]);
  }

  return ctx.db.transaction().execute(async (trx) => {
    const locked = await lockTicketPair(trx, companyId, [source.id, target.id]);
    const lockedSource = locked.get(source.id);
    const lockedTarget = locked.get(target.id);
    if (!lockedSource) throw notFound("ticket not found");
    if (!lockedTarget) throw notFound("target ticket not found");
    const events = await listPublicEvents(trx, lockedSource.id);
    const plan = planMerge(lockedSource, lockedTarget, events, { type: "user", id: actingUserId }, new Date());
    const merged = await updateTicket(trx, lockedTarget.id, plan.target.changes, { ticket: lockedTarget, events: plan.target.events });
    const closed = await updateTicket(trx, lockedSource.id, plan.source.changes, { ticket: lockedSource, events: plan.source.events });
    await shareSessionTickets(trx, lockedSource.id, lockedTarget.id);
    await writeEvents(trx, plan.domainEvents);
    return { source: closed, target: merged };
  });
}

/**
 * Closes one waiting ticket as auto_closed if it is still due, in its own transaction.
 * The row is locked with SKIP LOCKED: a ticket another replica (or an action) holds is left
 * for the next sweep, and the re-check under the lock makes a second close impossible.
 */
export async function autoCloseTicket(ctx: TicketsContext, ticketId: string, hours: number, now: Date): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const ticket = await lockWaitingTicket(trx, ticketId);
    if (!ticket || !isDueForAutoClose(ticket, hours, now)) return false;
    const result = transition(ticket, { type: "autoClose" }, now);
    if (!result.ok) return false;
    const actor: Actor = { type: "system", id: "auto-close" };
    const closed = await updateTicket(trx, ticket.id, { ...result.state, lastActivityAt: now });
    const end: RecordedEvent = { id: randomUUID(), type: "END", data: { resolutionType: "auto_closed" }, actor };
    const status: RecordedEvent = { id: randomUUID(), type: "STATUS_CHANGED", data: { from: ticket.status, to: closed.status }, actor };
    await insertEvents(trx, closed, [status, end]);
    await writeEvents(trx, [domain.statusChanged(closed, ticket.status, actor), domain.ticketClosed(closed, now, actor)]);
    return true;
  });
}

/** Ids of a company's waiting tickets due for auto-close at `now` (candidates; re-checked when closing). */
export async function dueForAutoClose(ctx: TicketsContext, companyId: string, hours: number, now: Date, limit: number): Promise<string[]> {
  return dueWaitingTicketIds(ctx.db, companyId, new Date(now.getTime() - hours * 3_600_000), limit);
}
