// Player deletion (scheduled and immediate): the rules only (no SQL, no RPC, no NATS). A scheduled
// deletion becomes due `delay` after it was asked for; its NATS message is held back until then
// in steps of at most MAX_HOLD_MS. An erasure runs its steps in a fixed order, the player
// record last, and records each step so that an interrupted one resumes where it stopped.

/**
 * Who asked: an API key (the public API), an operator (the admin command), or an admin of the
 * company in the support application's settings (an immediate deletion).
 */
export type Requester = { type: "api_key"; id: string | null } | { type: "operator"; id: null } | { type: "user"; id: string };
/** Who may cancel a schedule: an operator, or a user of the company in the support application. */
export type Canceller = Requester;

export type ErasureTrigger = "scheduled" | "immediate";

/** The steps of an erasure, in the order they run. `players` (the record) is always last. */
export const ERASURE_STEPS = ["tickets", "media", "players"] as const;
export type ErasureStep = (typeof ERASURE_STEPS)[number];

/** Records deleted per kind, as reported by the service that deleted them. */
export type ErasureCounts = Record<string, number>;

export interface StepRecord {
  status: "done";
  /** ISO time the step completed. */
  at: string;
  counts: ErasureCounts;
}

export type ErasureSteps = Partial<Record<ErasureStep, StepRecord>>;

export interface DeletionSchedule {
  id: string;
  playerId: string;
  companyId: string;
  gameId: string;
  requestedBy: Requester;
  createdAt: Date;
  dueAt: Date;
}

export interface Erasure {
  id: string;
  companyId: string;
  playerId: string;
  gameId: string;
  trigger: ErasureTrigger;
  requestedBy: Requester;
  requestedAt: Date;
  startedAt: Date;
  completedAt: Date | null;
  steps: ErasureSteps;
  attempts: number;
  lastError: string | null;
}

/**
 * The longest a message is held back at once. NATS 2.9 honours far longer nak delays, but a
 * bounded hold means a due time is re-read (and a changed clock noticed) at least hourly.
 */
export const MAX_HOLD_MS = 3_600_000;

/**
 * The delay must stay well inside the players stream's retention (7 days, libs/bus): a held
 * message older than that would be dropped by the stream, and the schedule with it.
 */
export const MAX_DELETION_DELAY_SECONDS = 6 * 24 * 3600;

export function dueAt(now: Date, delaySeconds: number): Date {
  return new Date(now.getTime() + delaySeconds * 1000);
}

/** How long to hold the schedule's message back before looking again; 0 when it is due. */
export function holdMs(due: Date, now: Date, maxHoldMs = MAX_HOLD_MS): number {
  const remaining = due.getTime() - now.getTime();
  return remaining <= 0 ? 0 : Math.min(remaining, maxHoldMs);
}

/** The steps still to run, in order. */
export function pendingSteps(steps: ErasureSteps): ErasureStep[] {
  return ERASURE_STEPS.filter((step) => steps[step]?.status !== "done");
}

export function stepDone(counts: ErasureCounts, at: Date): StepRecord {
  return { status: "done", at: at.toISOString(), counts };
}

/** Every count of every step, by service: the audit's "how many records per service". */
export function erasureCounts(steps: ErasureSteps): Partial<Record<ErasureStep, ErasureCounts>> {
  return Object.fromEntries(ERASURE_STEPS.filter((step) => steps[step]).map((step) => [step, steps[step]!.counts]));
}

/** Problems of the deletion settings, for the configuration check. */
export function deletionSettingsProblems(settings: { delaySeconds: number; maxPending: number }): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(settings.delaySeconds) || settings.delaySeconds < 1 || settings.delaySeconds > MAX_DELETION_DELAY_SECONDS) {
    problems.push(`PLAYER_DELETION_DELAY_SECONDS: must be an integer from 1 to ${MAX_DELETION_DELAY_SECONDS} (the players stream keeps messages 7 days)`);
  }
  if (!Number.isInteger(settings.maxPending) || settings.maxPending < 1) {
    problems.push("PLAYER_DELETION_MAX_PENDING: must be a positive integer");
  }
  return problems;
}

export const deletionEventTypes = {
  scheduled: "players.deletion.scheduled",
  cancelled: "players.deletion.cancelled",
  started: "players.deletion.started",
  deleted: "players.player.deleted",
} as const;

/** Data of players.deletion.scheduled: what the consumer needs to hold it back and to check it. */
export function scheduledData(schedule: DeletionSchedule) {
  return { scheduleId: schedule.id, playerId: schedule.playerId, gameId: schedule.gameId, dueAt: schedule.dueAt.toISOString() };
}

export function cancelledData(schedule: DeletionSchedule, cancelledBy: Canceller) {
  return { scheduleId: schedule.id, playerId: schedule.playerId, gameId: schedule.gameId, cancelledBy };
}

export function startedData(erasure: Erasure) {
  return { erasureId: erasure.id, playerId: erasure.playerId, gameId: erasure.gameId, trigger: erasure.trigger };
}

/** Data of players.player.deleted: ids and counts, no personal data. */
export function deletedData(erasure: Erasure, completedAt: Date) {
  return {
    playerId: erasure.playerId,
    gameId: erasure.gameId,
    erasureId: erasure.id,
    trigger: erasure.trigger,
    requestedBy: erasure.requestedBy,
    requestedAt: erasure.requestedAt.toISOString(),
    completedAt: completedAt.toISOString(),
    counts: erasureCounts(erasure.steps),
  };
}
