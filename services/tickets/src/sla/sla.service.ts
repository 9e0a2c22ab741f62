// SLA use cases: the company's settings (read, replace), a ticket's clocks, and the sweep that
// announces warnings and breaches. The sweep runs every SLA_SWEEP_INTERVAL_MS on every replica:
// each notice is claimed by its primary key (ticket, metric, cycle, kind) in the transaction that
// writes its domain event to the outbox, so whichever replica claims it first announces it, once.
import { isDeepStrictEqual } from "node:util";
import { newEvent } from "@support/events";
import { writeEvents } from "@support/bus";
import { isUuid, notFound, validationError } from "@support/errors";
import { DateTime } from "luxon";
import type { Logger } from "@support/logging";
import { createPeriodicJob, type Startable } from "@support/runtime";
import { changedParts, OPERATOR_ORIGIN, recordAutomationAudit, type AuditOrigin } from "../audit/automation-audit.ts";
import type { TicketsContext } from "../context.ts";
import { TICKET_EVENT_TYPES } from "../tickets/domain-events.ts";
import { findTicket } from "../tickets/ticket.repository.ts";
import { parseSlaSettings } from "./sla-settings.ts";
import { claimNotice, clearDueTimes, companiesWithSla, listCreatedTickets, saveDueTimes, findSlaSettings, listHistories, listSweepTickets, saveSlaSettings, type StoredSlaSettings, type SweptTicket } from "./sla.repository.ts";
import { computeClocks, nextDue, NO_SLA_SETTINGS, policyFor, SLA_METRICS, tallyClocks, type SlaReportRow, type SlaClock, type SlaPolicy, type SlaSettings } from "./sla.ts";

export const SLA_ACTOR = { type: "system", id: "sla" } as const;

export type SlaContext = Pick<TicketsContext, "db" | "logger" | "now">;

/** The company's settings; no policies and no calendar until an admin saves some. */
export async function getSlaSettings(ctx: SlaContext, companyId: string): Promise<StoredSlaSettings | (SlaSettings & { updatedAt: null })> {
  return (await findSlaSettings(ctx.db, companyId)) ?? { ...NO_SLA_SETTINGS, updatedAt: null };
}

/** The audited parts of the settings: the calendar and the policies, each whole when it changed (none saved yet: no calendar, no policies). */
async function auditSlaChange(ctx: SlaContext, origin: AuditOrigin | undefined, companyId: string, before: SlaSettings | undefined, after: SlaSettings): Promise<void> {
  const parts = (settings: SlaSettings) => ({ calendar: settings.calendar, policies: settings.policies });
  const changed = changedParts(parts(before ?? NO_SLA_SETTINGS), parts(after));
  if (changed) await recordAutomationAudit(ctx.db, origin, { action: "sla.updated", companyId, target: { type: "sla_settings", id: companyId }, ...changed }, ctx.now());
}

/**
 * Replaces the company's settings as a whole after checking them (INVALID_ARGUMENT naming every
 * problem; nothing stored then). What changed is recorded in the audit log for `origin` (an admin
 * in the settings); a save that changes nothing records nothing.
 */
export async function putSlaSettings(ctx: SlaContext, companyId: string, raw: unknown, origin?: AuditOrigin): Promise<StoredSlaSettings> {
  const settings = parseSlaSettings(raw);
  return ctx.db.transaction().execute(async (trx) => {
    const local = { ...ctx, db: trx };
    const before = await findSlaSettings(trx, companyId, true);
    const saved = await saveSlaSettings(trx, companyId, settings, ctx.now());
    // Without policies no sweep looks at the company's tickets again: their due times go now.
    if (settings.policies.length === 0) await clearDueTimes(trx, companyId);
    await auditSlaChange(local, origin, companyId, before, settings);
    return saved;
  });
}

/**
 * Sets settings a tenant file gives (checked by parseSlaSettings), replaced whole as by an admin;
 * the same settings again write nothing. Run inside the caller's transaction (ctx.db).
 */
export async function applyFileSla(ctx: SlaContext, companyId: string, settings: SlaSettings): Promise<"updated" | "unchanged"> {
  const current = await findSlaSettings(ctx.db, companyId, true);
  // Compared as JSON values: jsonb keeps its own key order and drops nothing the parser left undefined.
  const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
  if (current && isDeepStrictEqual(plain({ calendar: current.calendar, policies: current.policies }), plain({ calendar: settings.calendar, policies: settings.policies }))) return "unchanged";
  await saveSlaSettings(ctx.db, companyId, settings, ctx.now());
  if (settings.policies.length === 0) await clearDueTimes(ctx.db, companyId);
  await auditSlaChange(ctx, OPERATOR_ORIGIN, companyId, current, settings);
  return "updated";
}

/** The ticket's policy and clocks as of `now` (no policy: none). */
export async function ticketSlaClocks(ctx: SlaContext, companyId: string, ticketId: string, now: Date = ctx.now()): Promise<{ policy: SlaPolicy | null; clocks: SlaClock[] }> {
  if (!isUuid(ticketId)) throw notFound("ticket not found");
  const ticket = await findTicket(ctx.db, companyId, ticketId.toLowerCase());
  if (!ticket) throw notFound("ticket not found");
  const settings = await findSlaSettings(ctx.db, companyId);
  if (!settings) return { policy: null, clocks: [] };
  const tier = typeof ticket.metadata.playerTier === "number" ? ticket.metadata.playerTier : null;
  const policy = policyFor(settings, { gameId: ticket.gameId, tier, tags: ticket.tags });
  if (!policy) return { policy: null, clocks: [] };
  const history = (await listHistories(ctx.db, [ticket.id])).get(ticket.id)!;
  return { policy, clocks: computeClocks(policy, settings.calendar, { createdAt: ticket.createdAt, status: ticket.status, entries: history }, now) };
}

/**
 * The report of the last `weeks` ISO weeks (the current one included) for the tickets created in
 * them: per week, policy and metric, the targets met and breached, under the current policies
 * and as of now. Weeks are the company calendar's (its time zone), UTC without one.
 */
export async function slaReport(ctx: SlaContext, companyId: string, weeks: number): Promise<SlaReportRow[]> {
  if (!Number.isInteger(weeks) || weeks < 1 || weeks > 26) throw validationError([{ path: "/weeks", message: "must be a whole number from 1 to 26" }]);
  const settings = await findSlaSettings(ctx.db, companyId);
  if (!settings || settings.policies.length === 0) return [];
  const now = ctx.now();
  const zone = settings.calendar?.timeZone ?? "UTC";
  const from = DateTime.fromJSDate(now, { zone }).startOf("week").minus({ weeks: weeks - 1 }).toJSDate();
  const weekOf = (at: Date) => DateTime.fromJSDate(at, { zone }).toFormat("kkkk-'W'WW");
  const rows = new Map<string, SlaReportRow>();
  let afterId: string | null = null;
  for (;;) {
    const tickets = await listCreatedTickets(ctx.db, companyId, from, now, afterId, BATCH);
    if (tickets.length === 0) break;
    afterId = tickets.at(-1)!.id;
    const histories = await listHistories(ctx.db, tickets.map((t) => t.id));
    for (const ticket of tickets) {
      const policy = policyFor(settings, ticket);
      if (!policy) continue;
      tallyClocks(rows, policy, computeClocks(policy, settings.calendar, { createdAt: ticket.createdAt, status: ticket.status, entries: histories.get(ticket.id)! }, now), weekOf);
    }
    if (tickets.length < BATCH) break;
  }
  const order = new Map(settings.policies.map((policy, i) => [policy.id, i]));
  return [...rows.values()].sort((a, b) => a.week.localeCompare(b.week) || order.get(a.policyId)! - order.get(b.policyId)! || SLA_METRICS.indexOf(a.metric) - SLA_METRICS.indexOf(b.metric));
}

export interface SlaSweepResult {
  warnings: number;
  breaches: number;
}

export interface SlaJob extends Startable {
  /** One sweep as of `now` (the job's clock by default). Tests call it directly with a moved clock. */
  runOnce(now?: Date): Promise<SlaSweepResult>;
}

const BATCH = 500;
/** Closed tickets are looked at this long after their close: a clock stopped late between two sweeps still gets its breach. */
const CLOSED_LOOKBACK_MS = 60 * 60_000;

export function createSlaJob(ctx: SlaContext, settings: { intervalMs: number; logger: Logger; onNotice?: (kind: "warning" | "breach", metric: string) => void }): SlaJob {

  async function announce(ticket: SweptTicket, policy: SlaPolicy, clockState: SlaClock, kind: "warning" | "breach"): Promise<boolean> {
    const dueAt = clockState.dueAt!;
    return ctx.db.transaction().execute(async (trx) => {
      const claimed = await claimNotice(trx, { ticketId: ticket.id, companyId: ticket.companyId, metric: clockState.metric, cycle: clockState.cycle, kind, policyId: policy.id, dueAt });
      if (!claimed) return false;
      const type = kind === "warning" ? TICKET_EVENT_TYPES.slaWarning : TICKET_EVENT_TYPES.slaBreached;
      await writeEvents(trx, [
        newEvent(type, ticket.companyId, {
          ticketId: ticket.id, runningId: ticket.runningId, gameId: ticket.gameId, policyId: policy.id, policyName: policy.name, metric: clockState.metric,
          cycle: clockState.cycle, dueAt: dueAt.toISOString(), targetMinutes: clockState.targetMinutes, assigneeId: ticket.assigneeId, actor: SLA_ACTOR,
        }),
      ]);
      return true;
    });
  }

  async function sweepCompany(companyId: string, now: Date, result: SlaSweepResult): Promise<void> {
    const stored = await findSlaSettings(ctx.db, companyId);
    if (!stored || stored.policies.length === 0) return;
    // Due times before the settings were saved are not announced: adding or changing a policy
    // must not flood subscribers with breaches of the past (the clocks still show them).
    const since = stored.updatedAt.getTime();
    let afterId: string | null = null;
    for (;;) {
      const tickets = await listSweepTickets(ctx.db, companyId, new Date(now.getTime() - CLOSED_LOOKBACK_MS), afterId, BATCH);
      if (tickets.length === 0) return;
      afterId = tickets.at(-1)!.id;
      const histories = await listHistories(ctx.db, tickets.map((t) => t.id));
      const dues = new Map<string, Date | null>();
      for (const ticket of tickets) {
        const policy = policyFor(stored, ticket);
        if (!policy) {
          dues.set(ticket.id, null);
          continue;
        }
        const clocks = computeClocks(policy, stored.calendar, { createdAt: ticket.createdAt, status: ticket.status, entries: histories.get(ticket.id)! }, now);
        dues.set(ticket.id, nextDue(clocks)?.dueAt ?? null);
        for (const c of clocks) {
          if (c.state === "breached" && c.dueAt !== null && c.dueAt.getTime() >= since) {
            if (await announce(ticket, policy, c, "breach")) {
              result.breaches += 1;
              settings.onNotice?.("breach", c.metric);
            }
          } else if ((c.state === "running" || c.state === "paused") && c.warnAt !== null && c.warnAt.getTime() <= now.getTime() && c.warnAt.getTime() >= since) {
            if (await announce(ticket, policy, c, "warning")) {
              result.warnings += 1;
              settings.onNotice?.("warning", c.metric);
            }
          }
        }
      }
      await saveDueTimes(ctx.db, dues, new Map(tickets.map((t) => [t.id, t.slaDueAt])));
      if (tickets.length < BATCH) return;
    }
  }

  async function runOnce(now: Date = ctx.now()): Promise<SlaSweepResult> {
    const result = { warnings: 0, breaches: 0 };
    for (const companyId of await companiesWithSla(ctx.db)) {
      try {
        await sweepCompany(companyId, now, result);
      } catch (error) {
        // One company's failure must not stop the others.
        settings.logger.warn({ err: error, companyId }, "SLA sweep failed for a company; retrying next time");
      }
    }
    if (result.warnings + result.breaches > 0) settings.logger.info(result, "SLA warnings and breaches announced");
    return result;
  }

  const job = createPeriodicJob({ name: "SLA sweep", intervalMs: settings.intervalMs, logger: settings.logger, run: () => runOnce() });
  return { runOnce, start: job.start, stop: job.stop };
}
