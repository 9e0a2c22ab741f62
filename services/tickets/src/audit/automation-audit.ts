// Audit entries of changes of the automation settings this service keeps: rules, the SLA
// calendar and policies, the triage threshold and the outbreak settings. The audit log is the
// content service's: each entry is handed over as a tickets.audit.recorded event, written to the
// outbox in the change's transaction (no change without its entry, no entry without its change),
// and content records it once per event id. An admin in the settings is the actor when the
// gateway names them; a tenant file applied with `pnpm admin` acts as the operator. A save that
// changes nothing records nothing; before and after hold only what changed.
import { isDeepStrictEqual } from "node:util";
import { writeEvents } from "@support/bus";
import type { Kysely } from "@support/db";
import { isUuid, validationError } from "@support/errors";
import { newEvent } from "@support/events";
import type { TicketsDatabase } from "../database.ts";

/** Who makes a change, and from where: an admin in the settings, or an operator's tenant file. */
export interface AuditOrigin {
  actor: { type: "user"; id: string } | { type: "operator"; id: null };
  clientAddress?: string | null | undefined;
}

/** A tenant file applied by an operator (`pnpm admin apply`). */
export const OPERATOR_ORIGIN: AuditOrigin = { actor: { type: "operator", id: null } };

/** The admin of a settings request, when the gateway names one; none (nothing recorded) otherwise. A malformed user id is refused. */
export function adminOrigin(actingUserId: string | undefined, clientAddress: string | undefined): AuditOrigin | undefined {
  if (!actingUserId) return undefined;
  if (!isUuid(actingUserId)) throw validationError([{ path: "/actingUserId", message: "must be the id of the acting user" }]);
  return { actor: { type: "user", id: actingUserId.toLowerCase() }, clientAddress: clientAddress || null };
}

export type AutomationAuditAction = "rule.created" | "rule.updated" | "rule.deleted" | "rule.reordered" | "sla.updated" | "triage.updated" | "outbreaks.updated";

export type AutomationAuditTarget = "rule" | "rules" | "sla_settings" | "triage_settings" | "outbreak_settings";

export interface AutomationAuditEntry {
  action: AutomationAuditAction;
  companyId: string;
  /** The rule; the company for its settings and the rules' order. */
  target: { type: AutomationAuditTarget; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Compared and recorded as JSON values: jsonb keeps its own key order and drops what is undefined. */
const plain = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/**
 * The parts of `before` and `after` that differ (by top-level key), plus the `keep` keys of each
 * (a rule's name, to tell which rule); null when nothing differs.
 */
export function changedParts(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  keep: readonly string[] = [],
): { before: Record<string, unknown>; after: Record<string, unknown> } | null {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !isDeepStrictEqual(plain(before[key]), plain(after[key])));
  if (keys.length === 0) return null;
  const pick = (from: Record<string, unknown>) => Object.fromEntries([...keep, ...keys.filter((key) => !keep.includes(key))].map((key) => [key, plain(from[key])]));
  return { before: pick(before), after: pick(after) };
}

/** Writes the entry's event to the outbox in `trx` when someone known acted; nothing otherwise. */
export async function recordAutomationAudit(trx: Kysely<TicketsDatabase>, origin: AuditOrigin | undefined, entry: AutomationAuditEntry, at = new Date()): Promise<void> {
  if (!origin) return;
  await writeEvents(trx, [
    newEvent("tickets.audit.recorded", entry.companyId, {
      action: entry.action,
      actor: origin.actor,
      target: entry.target,
      before: entry.before === null ? null : (plain(entry.before) as Record<string, unknown>),
      after: entry.after === null ? null : (plain(entry.after) as Record<string, unknown>),
      detail: {},
      clientAddress: origin.clientAddress ?? null,
      createdAt: at.toISOString(),
    }),
  ]);
}
