// Triage's use cases: train a company's model on its resolved tickets, classify a new ticket once
// (values at or above the company's threshold set as the system actor "triage", the ones between
// 0.5 and it stored as suggestions), apply or dismiss a suggestion as an agent, the company's
// threshold, and the online precision of what the triage put forward.
import { writeEvents } from "@support/bus";
import { conflict, isUuid, notFound, validationError } from "@support/errors";
import {
  classifyTicket, loadTriageModel, onlinePrecision, serializeTriageModel, trainTriageModel, TRIAGE_MODEL_FORMAT,
  type PrecisionCount, type SerializedTriageModel, type TriageModel, type TriageSchema,
} from "@support/triage";
import type { Kysely } from "kysely";
import { changedParts, OPERATOR_ORIGIN, recordAutomationAudit, type AuditOrigin } from "../audit/automation-audit.ts";
import type { TicketsContext } from "../context.ts";
import type { TicketsDatabase } from "../database.ts";
import { applyActions } from "../tickets/apply-actions.ts";
import { findTicket, updateTicket } from "../tickets/ticket.repository.ts";
import { getTicket, performTicketActions } from "../tickets/ticket.service.ts";
import type { Actor, Ticket } from "../tickets/ticket.ts";
import {
  claimRun, companiesWithResolvedTickets, decidePrediction, deleteModel, findModel, findPrediction, findThreshold, findTriageState,
  insertPredictions, listPredictionOutcomes, listTicketPredictions, listTrainingTickets, saveModel, saveThreshold, type Prediction,
} from "./triage.repository.ts";
import { DEFAULT_THRESHOLD, labelledTicket, planTriage, predictionOutcome, sameSchema, schemaIsEmpty, suggestionAction, SUGGEST_THRESHOLD, triageSchema } from "./triage.ts";

type Db = Kysely<TicketsDatabase>;

/** Who the triage's changes are attributed to in the ticket's history and events. */
export const TRIAGE_ACTOR: Actor = { type: "system", id: "triage" };

/** How far back training and the precision report look. */
export const HISTORY_DAYS = 180;
/** Most resolved tickets one training reads (the newest). */
const TRAINING_LIMIT = 20_000;

/**
 * The companies' models in memory, each loaded once per stored version: a lookup asks the
 * database only for the stored model's time (a primary-key read) and loads the model again only
 * when a newer one was written, by this replica's job or another's.
 */
export interface TriageModels {
  /** The company's model stored at `trainedAt` (read by the caller), loaded when this replica has an older one. */
  get(db: Db, companyId: string, trainedAt: Date): Promise<{ model: TriageModel; trainedAt: Date } | undefined>;
  /** The company has no model (any more): its loaded one is dropped. */
  forget(companyId: string): void;
}

export function createTriageModels(): TriageModels {
  const loaded = new Map<string, { model: TriageModel; trainedAt: Date }>();
  return {
    async get(db, companyId, trainedAt) {
      const cached = loaded.get(companyId);
      if (cached && cached.trainedAt.getTime() === trainedAt.getTime()) return cached;
      const row = await findModel(db, companyId);
      if (!row || row.format !== TRIAGE_MODEL_FORMAT) return undefined;
      const entry = { model: loadTriageModel(row.model as SerializedTriageModel), trainedAt: row.trainedAt };
      loaded.set(companyId, entry);
      return entry;
    },
    forget(companyId) {
      loaded.delete(companyId);
    },
  };
}

export type TriageContext = Pick<TicketsContext, "db" | "logger" | "reference" | "triage">;

export interface TrainingResult {
  /** Resolved tickets read, and how many of them taught something (an agent's AI tags or fields). */
  tickets: number;
  labelled: number;
  /** False when the company has no AI tag or field, or no ticket an agent labelled: it has no model then. */
  trained: boolean;
}

/**
 * Trains the company's model on its tickets resolved in the last HISTORY_DAYS and replaces the
 * stored one. A company without AI tags or closed-set AI fields, or without a resolved ticket an
 * agent labelled, has no model.
 */
export async function trainCompany(ctx: TriageContext, companyId: string, now: Date = new Date()): Promise<TrainingResult> {
  const definitions = await ctx.reference.getDefinitions(companyId, { fresh: true });
  const schema = triageSchema(definitions);
  if (schemaIsEmpty(schema)) {
    await deleteModel(ctx.db, companyId);
    return { tickets: 0, labelled: 0, trained: false };
  }
  const history = await listTrainingTickets(ctx.db, companyId, new Date(now.getTime() - HISTORY_DAYS * 86_400_000), TRAINING_LIMIT);
  // Oldest first, so that the same history always gives the same model (the SGD's order is seeded on it).
  const tickets = history.reverse().map((ticket) => labelledTicket(ticket, schema));
  const labelled = tickets.filter((t) => t.tags !== null || Object.keys(t.fields).length > 0);
  // Nothing an agent decided yet: no model (a model of nothing would classify every ticket for naught).
  if (labelled.length === 0) {
    await deleteModel(ctx.db, companyId);
    return { tickets: history.length, labelled: 0, trained: false };
  }
  const started = process.cpuUsage();
  const model = trainTriageModel(schema, labelled);
  const cpu = process.cpuUsage(started);
  await saveModel(ctx.db, companyId, { format: TRIAGE_MODEL_FORMAT, trainedAt: now, tickets: labelled.length, schema, json: serializeTriageModel(model) });
  ctx.logger.info({ companyId, tickets: history.length, labelled: labelled.length, slices: model.slices.size, cpuMs: Math.round((cpu.user + cpu.system) / 1000) }, "triage model trained");
  return { tickets: history.length, labelled: labelled.length, trained: true };
}

/**
 * Retrains the company's model when its AI tags or fields no longer match the model's (a flag or
 * an option changed). A company without a model waits for its first training (the daily job, or
 * an admin's "Train now"): its tags and fields are often still being set up, one event each.
 */
export async function retrainIfSchemaChanged(ctx: TriageContext, companyId: string): Promise<boolean> {
  const stored = await findModel(ctx.db, companyId);
  if (!stored) return false;
  const schema = triageSchema(await ctx.reference.getDefinitions(companyId, { fresh: true }));
  if (sameSchema((stored.model as SerializedTriageModel).schema, schema)) return false;
  await trainCompany(ctx, companyId);
  return true;
}

/** Trains every company with resolved tickets in the window; one company's failure does not stop the others. */
export async function trainAll(ctx: TriageContext, now: Date = new Date()): Promise<number> {
  let trained = 0;
  for (const companyId of await companiesWithResolvedTickets(ctx.db, new Date(now.getTime() - HISTORY_DAYS * 86_400_000))) {
    try {
      if ((await trainCompany(ctx, companyId, now)).trained) trained += 1;
    } catch (error) {
      ctx.logger.warn({ err: error, companyId }, "triage training failed for a company; retrying next time");
    }
  }
  return trained;
}

export async function companyThreshold(db: Db, companyId: string): Promise<number> {
  return (await findThreshold(db, companyId)) ?? DEFAULT_THRESHOLD;
}

/**
 * Classifies the ticket once, on its first player message (at creation, or later for a ticket
 * created without one). Answers what it set and suggested, or undefined when the ticket was
 * classified before, is closed or gone, or the company has no model.
 */
export async function classifyNewTicket(ctx: TriageContext, companyId: string, ticketId: string, message: string): Promise<{ set: number; suggested: number } | undefined> {
  if (message.trim() === "" || !isUuid(ticketId)) return undefined;
  // One round trip settles most player messages (not a ticket's first) and companies without a model.
  const state = await findTriageState(ctx.db, companyId, ticketId);
  if (state.trainedAt === null) ctx.triage.forget(companyId);
  if (state.classified || state.trainedAt === null) return undefined;
  const current = await ctx.triage.get(ctx.db, companyId, state.trainedAt);
  if (!current) return undefined;
  const threshold = state.threshold ?? DEFAULT_THRESHOLD;
  const definitions = await ctx.reference.getDefinitions(companyId);
  return ctx.db.transaction().execute(async (trx) => {
    const ticket = await findTicket(trx, companyId, ticketId, true);
    if (!ticket || ticket.status === "closed") return undefined;
    if (!(await claimRun(trx, companyId, ticketId, current.trainedAt))) return undefined;
    const prediction = classifyTicket(current.model, { gameId: ticket.gameId, language: ticket.language, subject: "", messages: [message] }, { set: threshold, suggest: SUGGEST_THRESHOLD });
    const plan = planTriage(ticket, prediction, definitions);
    if (plan.actions.length > 0) {
      const applied = applyActions(ticket, plan.actions, { now: new Date(), apiKeyId: null, actor: TRIAGE_ACTOR, hasAccess: () => true, definitions });
      await updateTicket(trx, ticket.id, applied.changes, { ticket, events: applied.events });
      await writeEvents(trx, applied.domainEvents);
    }
    await insertPredictions(trx, companyId, ticket.id, plan.predictions);
    const set = plan.predictions.filter((p) => p.state === "set").length;
    return { set, suggested: plan.predictions.length - set };
  });
}

/** The ticket's predictions (set values and suggestions with their state), for a user with access to its game. */
export async function listTicketTriage(ctx: TriageContext, companyId: string, ticketId: string, userId: string): Promise<Prediction[]> {
  const ticket = await accessibleTicket(ctx, companyId, ticketId, userId);
  return listTicketPredictions(ctx.db, companyId, ticket.id);
}

async function accessibleTicket(ctx: TriageContext, companyId: string, ticketId: string, userId: string): Promise<Ticket> {
  if (!isUuid(ticketId) || !isUuid(userId)) throw notFound("ticket not found");
  const ticket = await getTicket(ctx as TicketsContext, companyId, ticketId);
  if (!(await ctx.reference.hasGameAccess(companyId, userId.toLowerCase(), ticket.gameId))) throw notFound("ticket not found");
  return ticket;
}

async function pendingSuggestion(ctx: TriageContext, companyId: string, ticketId: string, suggestionId: string, userId: string): Promise<{ ticket: Ticket; suggestion: Prediction }> {
  const ticket = await accessibleTicket(ctx, companyId, ticketId, userId);
  const suggestion = isUuid(suggestionId) ? await findPrediction(ctx.db, companyId, ticket.id, suggestionId.toLowerCase()) : undefined;
  if (!suggestion || suggestion.decision !== "suggest") throw notFound("suggestion not found");
  if (suggestion.state !== "pending") throw conflict(`The suggestion was already ${suggestion.state}`);
  return { ticket, suggestion };
}

/**
 * Applies a suggestion as the user (their action in the history, like a click on the tag), and
 * records it applied in the same transaction. A suggestion is applied or dismissed once.
 */
export async function applySuggestion(ctx: TicketsContext, companyId: string, ticketId: string, suggestionId: string, userId: string): Promise<Ticket> {
  const { ticket, suggestion } = await pendingSuggestion(ctx, companyId, ticketId, suggestionId, userId);
  const action = suggestionAction(suggestion, await ctx.reference.getDefinitions(companyId), ticket.gameId);
  if (!action) throw conflict(`The field ${suggestion.name} no longer takes the value ${suggestion.value}`);
  return performTicketActions(ctx, {
    companyId,
    ticketId: ticket.id,
    actions: [action],
    apiKeyId: null,
    actingUserId: userId,
    afterApply: async (trx) => {
      // Under the ticket's row lock: a second click (or another agent's) finds it decided.
      const locked = await findPrediction(trx, companyId, ticket.id, suggestion.id, true);
      if (locked?.state !== "pending") throw conflict(`The suggestion was already ${locked?.state ?? "removed"}`);
      await decidePrediction(trx, suggestion.id, "applied", userId.toLowerCase());
    },
  });
}

/** The user dismisses a suggestion: the console stops showing it, and it counts as wrong. */
export async function dismissSuggestion(ctx: TriageContext, companyId: string, ticketId: string, suggestionId: string, userId: string): Promise<void> {
  const { ticket, suggestion } = await pendingSuggestion(ctx, companyId, ticketId, suggestionId, userId);
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await findPrediction(trx, companyId, ticket.id, suggestion.id, true);
    if (locked?.state !== "pending") throw conflict(`The suggestion was already ${locked?.state ?? "removed"}`);
    await decidePrediction(trx, suggestion.id, "dismissed", userId.toLowerCase());
  });
}

export interface TriageReport {
  threshold: number;
  model: { trainedAt: Date; tickets: number; schema: TriageSchema } | null;
  set: PrecisionCount;
  suggest: PrecisionCount;
  byName: { kind: "tag" | "field"; name: string; set: PrecisionCount; suggest: PrecisionCount }[];
}

/** The company's threshold, model and online precision over the last HISTORY_DAYS. */
export async function triageReport(ctx: Pick<TicketsContext, "db">, companyId: string, now: Date = new Date()): Promise<TriageReport> {
  const [threshold, stored, rows] = await Promise.all([
    companyThreshold(ctx.db, companyId),
    findModel(ctx.db, companyId),
    listPredictionOutcomes(ctx.db, companyId, new Date(now.getTime() - HISTORY_DAYS * 86_400_000)),
  ]);
  const precision = onlinePrecision(rows.map(predictionOutcome).filter((o) => o !== undefined));
  return {
    threshold,
    model: stored ? { trainedAt: stored.trainedAt, tickets: stored.tickets, schema: (stored.model as SerializedTriageModel).schema } : null,
    set: precision.set,
    suggest: precision.suggest,
    byName: Object.entries(precision.byName)
      .map(([key, counts]) => ({ kind: key.startsWith("tag:") ? ("tag" as const) : ("field" as const), name: key.slice(key.indexOf(":") + 1), ...counts }))
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)),
  };
}

/**
 * Sets the company's threshold: a number from 0.5 to 1 (1 sets only what the model is sure of;
 * nothing below 0.5 is ever shown). A change is recorded in the audit log for `origin` (an admin
 * in the settings, or a tenant file); the same threshold again records nothing.
 */
export async function setThreshold(ctx: Pick<TicketsContext, "db">, companyId: string, threshold: number, origin?: AuditOrigin): Promise<void> {
  if (!Number.isFinite(threshold) || threshold < SUGGEST_THRESHOLD || threshold > 1) {
    throw validationError([{ path: "/threshold", message: "must be a number from 0.5 to 1" }]);
  }
  const work = async (trx: Db) => {
    const before = (await findThreshold(trx, companyId, true)) ?? DEFAULT_THRESHOLD;
    await saveThreshold(trx, companyId, threshold);
    const changed = changedParts({ threshold: before }, { threshold });
    if (changed) await recordAutomationAudit(trx, origin, { action: "triage.updated", companyId, target: { type: "triage_settings", id: companyId }, ...changed });
  };
  await (ctx.db.isTransaction ? work(ctx.db) : ctx.db.transaction().execute(work));
}

/** Sets a tenant file's threshold (checked as setThreshold does); the same again writes nothing. Run inside the caller's transaction (ctx.db). */
export async function applyFileThreshold(ctx: Pick<TicketsContext, "db">, companyId: string, threshold: number): Promise<"updated" | "unchanged"> {
  if ((await findThreshold(ctx.db, companyId)) === threshold) return "unchanged";
  await setThreshold(ctx, companyId, threshold, OPERATOR_ORIGIN);
  return "updated";
}
