// SLA rules, without I/O: which policy applies to a ticket, and the state of its clocks (first
// response, next response, resolution) computed from the ticket's history as of a given moment.
// The sweep (sla.service.ts) reads tickets and histories, computes with these functions and emits
// the warnings and breaches they name; the ticket reads show the same clocks.
import { addWorking, workingMs, type SlaCalendar } from "./calendar.ts";
import type { TicketStatus } from "../tickets/ticket.ts";

export const SLA_METRICS = ["first_response", "next_response", "resolution"] as const;
export type SlaMetric = (typeof SLA_METRICS)[number];

export interface SlaTargets {
  /** Minutes of (working) time until the first agent message; null: no target. */
  firstResponseMinutes: number | null;
  /** Minutes until an agent answers a player message that came after an agent's message. */
  nextResponseMinutes: number | null;
  /** Minutes until the ticket is closed. */
  resolutionMinutes: number | null;
}

export interface SlaPolicy {
  /** Stable key: events and reports name the policy by it. */
  id: string;
  name: string;
  /** Conditions, each empty for any: the ticket's game is one of these, */
  gameIds: string[];
  /** its player tier is one of these (a ticket without a tier counts as tier 1), */
  tiers: number[];
  /** it has at least one of these tags. */
  tags: string[];
  targets: SlaTargets;
  /** Count only the calendar's working hours (true) or around the clock (false). */
  businessHours: boolean;
  /** Stop the clocks while the ticket waits for the player (status waiting); on hold always stops them. */
  pauseWhileWaiting: boolean;
  /** A warning comes this many minutes of (working) time before a target is due; 0: none. */
  warnBeforeMinutes: number;
}

export interface SlaSettings {
  /** The company calendar the policies with businessHours count in; null: none set. */
  calendar: SlaCalendar | null;
  /** In order: the first policy whose conditions all hold applies. */
  policies: SlaPolicy[];
}

export const NO_SLA_SETTINGS: SlaSettings = { calendar: null, policies: [] };

/** What policy matching reads of a ticket. */
export interface SlaTicketFacts {
  gameId: string;
  tier: number | null;
  tags: readonly string[];
}

/** The policy of the ticket: the first whose conditions all hold; undefined: no SLA. */
export function policyFor(settings: SlaSettings, ticket: SlaTicketFacts): SlaPolicy | undefined {
  return settings.policies.find(
    (policy) =>
      (policy.gameIds.length === 0 || policy.gameIds.includes(ticket.gameId)) &&
      (policy.tiers.length === 0 || policy.tiers.includes(ticket.tier ?? 1)) &&
      (policy.tags.length === 0 || policy.tags.some((tag) => ticket.tags.includes(tag))),
  );
}

/** A moment of the ticket's history that moves a clock. */
export type SlaHistoryEntry =
  | { type: "PLAYER_MESSAGE" | "AGENT_MESSAGE"; id: string; at: Date }
  | { type: "STATUS_CHANGED"; id: string; at: Date; from: TicketStatus; to: TicketStatus };

export interface SlaTicketHistory {
  createdAt: Date;
  /** The status now (the history's last STATUS_CHANGED, or the first status when none). */
  status: TicketStatus;
  /** Messages and status changes, in order. */
  entries: readonly SlaHistoryEntry[];
}

export type SlaClockState = "running" | "paused" | "met" | "breached";

export interface SlaClock {
  metric: SlaMetric;
  /** Which run of the metric: "ticket" for first response and resolution, the player message's event id for a next response. */
  cycle: string;
  startedAt: Date;
  /** When the clock stopped (the answer, the close); null while it runs or is paused. */
  stoppedAt: Date | null;
  targetMinutes: number;
  /** Working time counted so far (until stoppedAt or now). */
  elapsedMs: number;
  /** When the target is (or was) reached; null while paused before reaching it, or when met. */
  dueAt: Date | null;
  /** When the warning is (or was) due; null as dueAt, or without a warning. */
  warnAt: Date | null;
  /** running or paused: open and not yet due; breached: the target passed (open or stopped late); met: stopped in time. */
  state: SlaClockState;
}

interface Span {
  from: number;
  to: number;
}

function pausing(policy: SlaPolicy, status: TicketStatus): boolean {
  return status === "on_hold" || (policy.pauseWhileWaiting && status === "waiting");
}

/** Spans of [createdAt, end) in which the ticket's clocks run: not paused, not closed. */
function runningSpans(policy: SlaPolicy, history: SlaTicketHistory, end: number): Span[] {
  const changes = history.entries.filter((e): e is Extract<SlaHistoryEntry, { type: "STATUS_CHANGED" }> => e.type === "STATUS_CHANGED");
  let status: TicketStatus = changes[0]?.from ?? history.status;
  let since = history.createdAt.getTime();
  const spans: Span[] = [];
  const close = (until: number) => {
    const to = Math.min(until, end);
    if (status !== "closed" && !pausing(policy, status) && to > since) spans.push({ from: since, to });
  };
  for (const change of changes) {
    const at = change.at.getTime();
    if (at >= end) break;
    close(at);
    status = change.to;
    since = Math.max(since, at);
  }
  close(end);
  return spans;
}

/** The first instant the working time counted within the spans, from `start`, reaches `threshold`; or the total counted when it does not. */
function crossing(calendar: SlaCalendar | null, spans: readonly Span[], start: number, threshold: number): { at: number } | { counted: number } {
  let counted = 0;
  for (const span of spans) {
    const from = Math.max(span.from, start);
    if (from >= span.to) continue;
    const here = workingMs(calendar, from, span.to);
    if (counted + here >= threshold) {
      const at = addWorking(calendar, from, threshold - counted);
      if (at !== null && at <= span.to) return { at };
    }
    counted += here;
  }
  return { counted };
}

/**
 * The ticket's clocks under the policy as of `now`: first response and resolution from the
 * ticket's creation, and the open or last next response (from the first player message after an
 * agent's message, until the next agent message). Only metrics with a target have a clock.
 */
export function computeClocks(policy: SlaPolicy, calendar: SlaCalendar | null, history: SlaTicketHistory, now: Date): SlaClock[] {
  const nowMs = now.getTime();
  const cal = policy.businessHours ? calendar : null;
  const spans = runningSpans(policy, history, nowMs);
  const closedAt = history.entries.find((e) => e.type === "STATUS_CHANGED" && e.to === "closed" && e.at.getTime() <= nowMs)?.at ?? null;
  const pausedNow = history.status === "closed" ? false : pausing(policy, currentStatus(history, nowMs));
  const clocks: SlaClock[] = [];

  const clock = (metric: SlaMetric, cycle: string, startedAt: Date, stoppedAt: Date | null, minutes: number | null) => {
    if (minutes === null) return;
    const start = startedAt.getTime();
    const stop = stoppedAt?.getTime() ?? nowMs;
    const target = minutes * 60_000;
    const within = spans.map((span) => ({ from: span.from, to: Math.min(span.to, stop) })).filter((span) => span.to > span.from);
    const elapsedMs = within.reduce((sum, span) => sum + (span.to > Math.max(span.from, start) ? workingMs(cal, Math.max(span.from, start), span.to) : 0), 0);
    const when = (threshold: number): Date | null => {
      const crossed = crossing(cal, within, start, threshold);
      if ("at" in crossed) return new Date(crossed.at);
      // Not reached yet: due after the rest of the working time, if the clock runs now.
      if (stoppedAt !== null || pausedNow) return null;
      const at = addWorking(cal, nowMs, threshold - crossed.counted);
      return at === null ? null : new Date(at);
    };
    const dueAt = when(target);
    const warnAt = policy.warnBeforeMinutes > 0 ? when(Math.max(0, target - policy.warnBeforeMinutes * 60_000)) : null;
    const breached = elapsedMs >= target;
    const state: SlaClockState = breached ? "breached" : stoppedAt !== null ? "met" : pausedNow ? "paused" : "running";
    clocks.push({ metric, cycle, startedAt, stoppedAt, targetMinutes: minutes, elapsedMs, dueAt: state === "met" ? null : dueAt, warnAt: state === "met" ? null : warnAt, state });
  };

  const messages = history.entries.filter((e) => e.type !== "STATUS_CHANGED" && e.at.getTime() <= nowMs);
  const firstAnswer = messages.find((e) => e.type === "AGENT_MESSAGE")?.at ?? null;
  clock("first_response", "ticket", history.createdAt, firstAnswer ?? closedAt, policy.targets.firstResponseMinutes);

  // The last next-response cycle: the first player message after the latest agent message that has one after it, or the open one.
  let waitingSince: Extract<SlaHistoryEntry, { type: "PLAYER_MESSAGE" }> | null = null;
  let last: { entry: SlaHistoryEntry; answeredAt: Date | null } | null = null;
  let answered = false;
  for (const entry of messages) {
    if (entry.type === "AGENT_MESSAGE") {
      if (waitingSince !== null) last = { entry: waitingSince, answeredAt: entry.at };
      waitingSince = null;
      answered = true;
    } else if (entry.type === "PLAYER_MESSAGE" && answered && waitingSince === null) {
      waitingSince = entry as Extract<SlaHistoryEntry, { type: "PLAYER_MESSAGE" }>;
    }
  }
  if (waitingSince !== null) last = { entry: waitingSince, answeredAt: closedAt };
  if (last !== null) clock("next_response", last.entry.id, last.entry.at, last.answeredAt, policy.targets.nextResponseMinutes);

  clock("resolution", "ticket", history.createdAt, closedAt, policy.targets.resolutionMinutes);
  return clocks;
}

function currentStatus(history: SlaTicketHistory, nowMs: number): TicketStatus {
  let status: TicketStatus = history.entries.find((e) => e.type === "STATUS_CHANGED")?.from ?? history.status;
  for (const entry of history.entries) if (entry.type === "STATUS_CHANGED" && entry.at.getTime() <= nowMs) status = entry.to;
  return status;
}

/** The clock an agent should look at first: the open one due soonest (breached ones first, the longest overdue first); undefined: none open. */
export function nextDue(clocks: readonly SlaClock[]): SlaClock | undefined {
  return clocks
    .filter((clock) => clock.stoppedAt === null && clock.dueAt !== null)
    .sort((a, b) => a.dueAt!.getTime() - b.dueAt!.getTime())[0];
}

/** One line of the report: a week's finished clocks of a policy's metric. */
export interface SlaReportRow {
  week: string;
  policyId: string;
  policyName: string;
  metric: SlaMetric;
  met: number;
  breached: number;
}

/**
 * Adds a ticket's finished clocks to the report rows (keyed by week, policy and metric): met, or
 * breached (stopped late, or open and past due). Clocks still within their target are not
 * decided yet and do not count. `weekOf` names the ISO week a clock started in.
 */
export function tallyClocks(rows: Map<string, SlaReportRow>, policy: SlaPolicy, clocks: readonly SlaClock[], weekOf: (at: Date) => string): void {
  for (const clock of clocks) {
    if (clock.state !== "met" && clock.state !== "breached") continue;
    const week = weekOf(clock.startedAt);
    const key = `${week}\n${policy.id}\n${clock.metric}`;
    const row = rows.get(key) ?? { week, policyId: policy.id, policyName: policy.name, metric: clock.metric, met: 0, breached: 0 };
    if (clock.state === "met") row.met += 1;
    else row.breached += 1;
    rows.set(key, row);
  }
}
