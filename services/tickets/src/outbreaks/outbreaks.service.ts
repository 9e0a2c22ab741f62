// Outbreak detection's use cases (docs/automation.md#outbreaks): on each new ticket, join it to
// an open incident of its game or open one with the recent tickets like it; the settings; and
// the incidents as agents read and close them. Detection runs under the game's advisory lock in
// one transaction, so replicas never open two incidents for one burst, and is idempotent: a
// ticket whose vector is stored was decided already (a redelivered event does nothing).
import { randomUUID } from "node:crypto";
import { writeEvents } from "@support/bus";
import type { SparseVector } from "@support/triage";
import { LRUCache } from "lru-cache";
import { isUuid, notFound, validationError, type ValidationIssue } from "@support/errors";
import { newEvent } from "@support/events";
import type { Kysely } from "kysely";
import { changedParts, OPERATOR_ORIGIN, recordAutomationAudit, type AuditOrigin } from "../audit/automation-audit.ts";
import type { TicketsContext } from "../context.ts";
import type { TicketsDatabase } from "../database.ts";
import { insertEvents } from "../ticket-events/event.repository.ts";
import { findTicket } from "../tickets/ticket.repository.ts";
import type { Ticket } from "../tickets/ticket.ts";
import {
  closeIncidentRow, findIncident, firstPlayerMessage, gameState, incidentTicketIds, insertIncident, insertVector, linkTickets, listIncidents, lockGameOutbreaks,
  readSettings, vectorsOf, writeSettings, type IncidentRow,
} from "./outbreaks.repository.ts";
import { decide, decodeVector, encodeVector, incidentTitle, OUTBREAK_LIMITS, OUTBREAKS_ACTOR, outbreakVector, RECENT_LIMIT, type OutbreakDecision, type OutbreakSettings } from "./outbreaks.ts";

type Db = Kysely<TicketsDatabase>;

/** Most incidents one list answers. */
const LIST_LIMIT = 100;
/** Most linked tickets GetIncident answers (the oldest). */
export const INCIDENT_TICKETS_LIMIT = 500;

export type OutbreaksContext = Pick<TicketsContext, "db" | "logger">;

/** Decoded vectors of recent tickets by ticket id, so that each replica reads a ticket's vector once. */
export type VectorCache = LRUCache<string, SparseVector>;

/**
 * Room for the recent tickets of many busy games: about 1.2 KB a ticket (100 features), so
 * 20,000 entries hold about 24 MB. A vector never changes, so an entry is never stale.
 */
export function createVectorCache(max = 20_000): VectorCache {
  return new LRUCache<string, SparseVector>({ max });
}

/** Each company's settings, read again after a few seconds (a change reaches every replica within them). */
export type SettingsCache = LRUCache<string, OutbreakSettings, unknown>;

/** How long a replica keeps a company's settings: a change takes effect for tickets created this much later at most. */
export const SETTINGS_TTL_MS = 5_000;

export function createSettingsCache(db: Db): SettingsCache {
  return new LRUCache<string, OutbreakSettings, unknown>({ max: 10_000, ttl: SETTINGS_TTL_MS, fetchMethod: (companyId) => readSettings(db, companyId) });
}

/** The vectors of these tickets, from the cache or else the table (then cached); in the same order, without any gone meanwhile. */
async function recentOf(db: Db, ids: readonly string[], cache: VectorCache | undefined): Promise<{ ticketId: string; vector: SparseVector }[]> {
  const missing = cache ? ids.filter((id) => !cache.has(id)) : ids;
  const read = await vectorsOf(db, missing);
  const found: { ticketId: string; vector: SparseVector }[] = [];
  for (const id of ids) {
    let vector = cache?.get(id);
    if (!vector) {
      const stored = read.get(id);
      if (!stored) continue;
      vector = decodeVector(stored);
      cache?.set(id, vector);
    }
    found.push({ ticketId: id, vector });
  }
  return found;
}

/** Records "joined incident X" in each ticket's history (an internal event, like an assignment's). */
async function recordLinked(trx: Db, companyId: string, incidentId: string, links: readonly { ticketId: string; similarity: number }[]): Promise<void> {
  if (links.length === 0) return;
  const tickets = await trx.selectFrom("tickets").select(["id", "language", "running_id"]).where("company_id", "=", companyId).where("id", "in", links.map((link) => link.ticketId)).execute();
  const byId = new Map(tickets.map((ticket) => [ticket.id, ticket]));
  for (const link of links) {
    const ticket = byId.get(link.ticketId);
    if (!ticket) continue;
    await insertEvents(trx, { id: ticket.id, companyId, language: ticket.language, runningId: ticket.running_id }, [
      { id: randomUUID(), type: "INCIDENT_LINKED", data: { incidentId, similarity: Math.round(link.similarity * 1000) / 1000 }, actor: OUTBREAKS_ACTOR },
    ]);
  }
}

/**
 * Decides a new ticket: nothing when the company's detection is off or the ticket has no text;
 * otherwise joins it to an open incident of its game or opens one. Answers the decision.
 */
export async function detectOutbreak(ctx: OutbreaksContext & { vectors?: VectorCache; settings?: SettingsCache }, companyId: string, ticketId: string, gameId: string): Promise<OutbreakDecision> {
  const settings = ctx.settings ? await ctx.settings.fetch(companyId) : await readSettings(ctx.db, companyId);
  if (!settings?.enabled) return { kind: "none" };
  const decision = await ctx.db.transaction().execute(async (trx) => {
    await lockGameOutbreaks(trx, companyId, gameId);
    const now = new Date();
    const since = new Date(now.getTime() - settings.windowMinutes * 60_000);
    const state = await gameState(trx, companyId, gameId, ticketId, since, RECENT_LIMIT);
    const ticket = state.ticket;
    if (!ticket || state.decided) return { kind: "none" } as const;
    const { text } = ticket;
    const vector = outbreakVector(text);
    // Without text (a ticket opened by a form without a message) there is nothing to compare.
    if (vector.indices.length === 0) return { kind: "none" } as const;
    const recent = await recentOf(trx, state.recentIds, ctx.vectors);
    const decided = decide(vector, state.open.map((incident) => ({ id: incident.id, vector: decodeVector(incident.vector) })), recent, settings);
    await insertVector(trx, { ticketId, companyId, gameId, createdAt: ticket.createdAt, vector: encodeVector(vector), since });
    ctx.vectors?.set(ticketId, vector);
    if (decided.kind === "join") {
      const linked = await linkTickets(trx, decided.incidentId, [ticketId], now);
      const similarity = Math.round(decided.similarity * 1000) / 1000;
      await recordLinked(trx, companyId, decided.incidentId, linked.map((id) => ({ ticketId: id, similarity })));
      // For rules' outbreak trigger (a join is not a public webhook).
      await writeEvents(trx, linked.map((id) => newEvent("tickets.incident.ticket_joined", companyId, { incidentId: decided.incidentId, gameId, ticketId: id, similarity, joinedAt: now.toISOString() })));
    } else if (decided.kind === "open") {
      const incidentId = randomUUID();
      // Oldest first (events may be handled out of order): the first ticket names the incident.
      const ordered = await trx.selectFrom("tickets").select("id").where("id", "in", [...decided.ticketIds, ticketId]).orderBy("created_at").orderBy("id").execute();
      const ticketIds = ordered.map((row) => row.id);
      const first = ticketIds[0] === ticketId ? text : await firstPlayerMessage(trx, ticketIds[0]!);
      const title = incidentTitle(first);
      await insertIncident(trx, { id: incidentId, company_id: companyId, game_id: gameId, title, status: "open", vector: encodeVector(decided.vector), opened_at: now });
      const linked = new Set(await linkTickets(trx, incidentId, ticketIds, now));
      const inOrder = ticketIds.filter((id) => linked.has(id));
      await recordLinked(trx, companyId, incidentId, inOrder.map((id) => ({ ticketId: id, similarity: 1 })));
      await writeEvents(trx, [newEvent("tickets.incident.opened", companyId, { incidentId, gameId, title, openedAt: now.toISOString(), ticketIds: inOrder })]);
      return { ...decided, incidentId };
    }
    return decided;
  });
  if (decision.kind === "open") ctx.logger.info({ companyId, gameId, tickets: decision.ticketIds.length + 1 }, "outbreak: incident opened");
  return decision;
}

export async function getOutbreakSettings(ctx: OutbreaksContext, companyId: string): Promise<OutbreakSettings> {
  return readSettings(ctx.db, companyId);
}

/** Checks each value against its range; answers the issues with their paths. */
export function settingsIssues(settings: OutbreakSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const check = (name: "minTickets" | "windowMinutes" | "similarity", integer: boolean) => {
    const value = settings[name];
    const { min, max } = OUTBREAK_LIMITS[name];
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      issues.push({ path: `/${name}`, message: `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}` });
    }
  };
  check("minTickets", true);
  check("windowMinutes", true);
  check("similarity", false);
  return issues;
}

/** Writes the settings and records what changed of them in the audit log for `origin`, in the caller's transaction. */
async function writeAndAudit(trx: Db, origin: AuditOrigin | undefined, companyId: string, before: OutbreakSettings, settings: OutbreakSettings): Promise<void> {
  await writeSettings(trx, companyId, settings);
  const changed = changedParts({ ...before }, { ...settings });
  if (changed) await recordAutomationAudit(trx, origin, { action: "outbreaks.updated", companyId, target: { type: "outbreak_settings", id: companyId }, ...changed });
}

/** An admin's settings, checked; a change is recorded in the audit log for `origin`, the same settings again record nothing. */
export async function updateOutbreakSettings(ctx: OutbreaksContext, companyId: string, settings: OutbreakSettings, origin?: AuditOrigin): Promise<OutbreakSettings> {
  const issues = settingsIssues(settings);
  if (issues.length > 0) throw validationError(issues);
  const saved = await ctx.db.transaction().execute(async (trx) => {
    await writeAndAudit(trx, origin, companyId, await readSettings(trx, companyId, true), settings);
    return readSettings(trx, companyId);
  });
  ctx.logger.info({ companyId, settings }, "outbreak settings changed");
  return saved;
}

/**
 * The company's settings with the values a tenant file gives over them, checked: the settings or
 * the issues under `/outbreaks`.
 */
export async function fileOutbreakSettings(ctx: OutbreaksContext, companyId: string, given: Partial<OutbreakSettings>): Promise<{ settings: OutbreakSettings; issues: ValidationIssue[] }> {
  const settings = { ...(await readSettings(ctx.db, companyId)), ...given };
  return { settings, issues: settingsIssues(settings).map((issue) => ({ path: `/outbreaks${issue.path}`, message: issue.message })) };
}

/** Writes settings from fileOutbreakSettings; the same again writes nothing. Run inside the caller's transaction (ctx.db). */
export async function applyFileOutbreakSettings(ctx: OutbreaksContext, companyId: string, settings: OutbreakSettings): Promise<"updated" | "unchanged"> {
  const current = await readSettings(ctx.db, companyId, true);
  if (current.enabled === settings.enabled && current.minTickets === settings.minTickets && current.windowMinutes === settings.windowMinutes && current.similarity === settings.similarity) return "unchanged";
  await writeAndAudit(ctx.db, OPERATOR_ORIGIN, companyId, current, settings);
  ctx.logger.info({ companyId, settings }, "outbreak settings changed by a tenant file");
  return "updated";
}

export async function listCompanyIncidents(ctx: OutbreaksContext, companyId: string, gameIds: readonly string[] | undefined, includeClosed: boolean): Promise<IncidentRow[]> {
  return listIncidents(ctx.db, companyId, gameIds, includeClosed, LIST_LIMIT);
}

/** The incident if it is the company's and (when games are given) of one of them. */
async function incidentInScope(db: Db, companyId: string, incidentId: string, gameIds: readonly string[] | undefined, lock = false): Promise<IncidentRow> {
  if (!isUuid(incidentId)) throw notFound("incident not found");
  const incident = await findIncident(db, companyId, incidentId.toLowerCase(), lock);
  if (!incident || (gameIds !== undefined && !gameIds.includes(incident.gameId))) throw notFound("incident not found");
  return incident;
}

export async function getIncident(ctx: OutbreaksContext, companyId: string, incidentId: string, gameIds: readonly string[] | undefined): Promise<{ incident: IncidentRow; tickets: Ticket[] }> {
  const incident = await incidentInScope(ctx.db, companyId, incidentId, gameIds);
  const ids = (await incidentTicketIds(ctx.db, incident.id)).slice(0, INCIDENT_TICKETS_LIMIT);
  const tickets = (await Promise.all(ids.map((id) => findTicket(ctx.db, companyId, id)))).filter((ticket): ticket is Ticket => ticket !== undefined);
  return { incident, tickets };
}

export async function closeIncident(ctx: OutbreaksContext, companyId: string, incidentId: string, userId: string, gameIds: readonly string[] | undefined): Promise<IncidentRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const incident = await incidentInScope(trx, companyId, incidentId, gameIds, true);
    if (incident.status === "open") {
      const closedAt = new Date();
      await closeIncidentRow(trx, incident.id, userId, closedAt);
      // For the consoles' banners, which drop the incident at once.
      await writeEvents(trx, [newEvent("tickets.incident.closed", companyId, { incidentId: incident.id, gameId: incident.gameId, closedAt: closedAt.toISOString(), closedByUserId: userId })]);
    }
    return (await findIncident(trx, companyId, incident.id))!;
  });
}
