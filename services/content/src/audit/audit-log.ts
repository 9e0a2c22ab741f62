// A company's audit log: who signed in, failed, was locked out, signed out, got a new password
// or a new role, and every change of the company's setup — made by an admin in the support
// application's settings, by an operator with `pnpm admin`, or by a tenant file — with what the
// object was before and after. An entry is written in the transaction of the change it records,
// together with its content.audit.recorded event (so that a webhook can forward it); admins
// read their company's entries. It never holds a password, a token, a code or a key's secret.
import { sql, type Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import type { ContentDatabase } from "../database.ts";
import { inTransaction } from "../common/transaction.ts";

export type AuditAction =
  | "sign_in.succeeded"
  | "sign_in.failed"
  | "sign_in.locked_out"
  | "sign_in.refused_locked"
  | "session.signed_out"
  | "session.signed_out_everywhere"
  | "password.set"
  | "user.invited"
  | "password_reset.requested"
  | "link.redeemed"
  | "user.deactivated"
  // Team settings (users/): an admin changed a user's role, games or skills.
  | "user.updated"
  // Two-factor (two-factor.service.ts).
  | "two_factor.enrolment_started"
  | "two_factor.enrolment_failed"
  | "two_factor.enabled"
  | "two_factor.challenged"
  | "two_factor.failed"
  | "two_factor.recovery_code_used"
  | "two_factor.reset"
  // Single sign-on (single-sign-on.service.ts).
  | "user.created_by_single_sign_on"
  // Canned responses (canned-responses/): admins' changes to the company's ready answers.
  | "canned_response.created"
  | "canned_response.updated"
  | "canned_response.retired"
  // API keys (api-keys/): created and revoked in the settings, by `pnpm admin` or a tenant file.
  | "api_key.created"
  | "api_key.revoked"
  // Games (games/): created and changed by admins in the settings.
  | "game.created"
  | "game.updated"
  | "game.metadata_keys_changed"
  | "game.routing_changed"
  | "environment.created"
  | "environment.token_rotated"
  // A game's branding of the web support page (games/branding.service.ts).
  | "game.branding_changed"
  // Tags and custom fields (tags/, fields/): created, changed and retired in the settings.
  | "tag.created"
  | "tag.updated"
  | "tag.retired"
  | "field.created"
  | "field.updated"
  | "field.retired"
  // Collectors (collectors/): created, changed and retired in the settings, and which one is a game's contact form.
  | "collector.created"
  | "collector.updated"
  | "collector.retired"
  | "collector.contact_form_changed"
  // Help articles (games/article.service.ts) and announcements (announcements/), changed in the settings.
  | "resource.created"
  | "resource.updated"
  | "resource.reordered"
  | "resource.removed"
  | "announcement.set"
  | "announcement.cleared"
  // Webhook subscriptions, changed by admins in the settings: recorded by the webhooks service and
  // handed over as webhooks.audit.recorded (audit/service-audit.consumer.ts).
  | "webhook.created"
  | "webhook.updated"
  | "webhook.deleted"
  | "webhook.secret_rotated"
  | "webhook.test_sent"
  | "webhook.delivery_retried"
  // Players, changed by admins on the settings' Players page (and a scheduled deletion cancelled
  // from a ticket): recorded by the players service and handed over as players.audit.recorded.
  | "player.blocked"
  | "player.unblocked"
  | "player.deletion_cancelled"
  | "player.deleted"
  // The automation settings the tickets service keeps, changed by admins in the settings or by a
  // tenant file: recorded by the tickets service and handed over as tickets.audit.recorded.
  | "rule.created"
  | "rule.updated"
  | "rule.deleted"
  | "rule.reordered"
  | "sla.updated"
  | "triage.updated"
  | "outbreaks.updated"
  // A tenant file applied by an operator (tenants/): what it created.
  | "tenant.applied";

/** Who acted: a signed-in user of the company, an operator (admin tool, tenant file) or nobody known (a failed sign-in). */
export interface AuditActor {
  type: "user" | "operator" | "anonymous";
  id: string | null;
}

export const OPERATOR: AuditActor = { type: "operator", id: null };

/** Who makes a change and from where: an admin in the settings, or an operator. */
export interface AuditOrigin {
  actor: AuditActor;
  clientAddress?: string | null | undefined;
}

export const OPERATOR_ORIGIN: AuditOrigin = { actor: OPERATOR };

export function userActor(userId: string): AuditActor {
  return { type: "user", id: userId };
}

/** Who makes a change, and from where (the gateway's client address for a signed-in admin). */
export interface ChangeOrigin {
  actor: AuditActor;
  clientAddress?: string | null | undefined;
  /** False when the caller records the change itself (a tenant file writes one entry for the whole file). */
  audit?: boolean;
}

export interface AuditEntry {
  action: AuditAction;
  companyId: string | null;
  /** The user the entry is about, when known. */
  userId: string | null;
  actor: AuditActor;
  /** The object changed, when there is one. */
  target?: { type: string; id: string };
  /** Its settings before the change (null or absent for a creation); never a secret. */
  before?: Record<string, unknown> | null;
  /** Its settings after the change (null or absent for a removal); never a secret. */
  after?: Record<string, unknown> | null;
  detail?: Record<string, unknown>;
  clientAddress?: string | null;
  /** The event of another service the entry came from: an entry is recorded once per event. */
  sourceEventId?: string;
}

/**
 * Records an entry, and for an entry of a company its content.audit.recorded event, both in the
 * caller's transaction (or one of their own).
 */
export async function writeAudit(db: Kysely<ContentDatabase>, entry: AuditEntry, at: Date = new Date()): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const written = await trx
      .insertInto("audit_log")
      .values({
        company_id: entry.companyId, user_id: entry.userId, action: entry.action, actor: JSON.stringify(entry.actor),
        detail: JSON.stringify(entry.detail ?? {}), client_address: entry.clientAddress ?? null, created_at: at,
        target_type: entry.target?.type ?? null, target_id: entry.target?.id ?? null,
        before: entry.before ? JSON.stringify(entry.before) : null, after: entry.after ? JSON.stringify(entry.after) : null,
        source_event_id: entry.sourceEventId ?? null,
      })
      // An entry of another service's event already recorded is not recorded again.
      .onConflict((conflict) => conflict.column("source_event_id").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!written) return false;
    const { id } = written;
    if (entry.companyId === null) return true;
    await writeEvents(trx, [
      newEvent("content.audit.recorded", entry.companyId, {
        auditEntryId: String(id), action: entry.action, userId: entry.userId, actor: entry.actor, target: entry.target ?? null,
        before: entry.before ?? null, after: entry.after ?? null, detail: entry.detail ?? {}, clientAddress: entry.clientAddress ?? null,
        createdAt: at.toISOString(),
      }),
    ]);
    return true;
  });
}

export interface AuditRecord {
  id: string;
  action: string;
  userId: string | null;
  /** name: the acting user's, while the user exists. */
  actor: { type: string; id: string | null; name: string | null };
  clientAddress: string | null;
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  detail: Record<string, unknown>;
  createdAt: Date;
}

/** Which entries to read: all filters are optional and combine. */
export interface AuditFilter {
  /** An action (`api_key.created`) or a family of them ending in a dot (`api_key.`). */
  action?: string | undefined;
  /** The acting user. */
  actorId?: string | undefined;
  /** The object changed, by type (and id). */
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** Entries at or after `since` and before `until`. */
  since?: Date | undefined;
  until?: Date | undefined;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** A company's entries, newest first, older than `before` (an id) when given. */
export async function listAudit(
  db: Kysely<ContentDatabase>,
  companyId: string,
  options: { limit: number; before?: string | undefined; filter?: AuditFilter },
): Promise<AuditRecord[]> {
  const filter = options.filter ?? {};
  let query = db
    .selectFrom("audit_log")
    .leftJoin("users", (join) => join.on(sql`users.id::text`, "=", sql`audit_log.actor->>'id'`).onRef("users.company_id", "=", "audit_log.company_id"))
    .selectAll("audit_log")
    .select("users.name as actor_name")
    .where("audit_log.company_id", "=", companyId)
    .orderBy("audit_log.id", "desc")
    .limit(options.limit);
  if (options.before !== undefined) query = query.where("audit_log.id", "<", options.before);
  if (filter.action !== undefined) {
    query = filter.action.endsWith(".") ? query.where("audit_log.action", "like", `${escapeLike(filter.action)}%`) : query.where("audit_log.action", "=", filter.action);
  }
  if (filter.actorId !== undefined) query = query.where(sql`audit_log.actor->>'id'`, "=", filter.actorId);
  if (filter.targetType !== undefined) query = query.where("audit_log.target_type", "=", filter.targetType);
  if (filter.targetId !== undefined) query = query.where("audit_log.target_id", "=", filter.targetId);
  if (filter.since !== undefined) query = query.where("audit_log.created_at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("audit_log.created_at", "<", filter.until);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: String(row.id),
    action: row.action,
    userId: row.user_id,
    actor: { ...row.actor, name: row.actor_name },
    clientAddress: row.client_address,
    target: row.target_type !== null && row.target_id !== null ? { type: row.target_type, id: row.target_id } : null,
    before: row.before,
    after: row.after,
    detail: row.detail,
    createdAt: row.created_at,
  }));
}
