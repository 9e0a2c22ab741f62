// The audit log of the support application's access: who signed in, failed, was locked out, signed
// out, got a new password or a new role. Written in the transaction of the change it records;
// admins read their company's entries. It never holds a password, a token or a code.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";

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
  | "canned_response.retired";

export interface AuditEntry {
  action: AuditAction;
  companyId: string | null;
  /** The user the entry is about, when known. */
  userId: string | null;
  actor: { type: "user" | "operator" | "anonymous"; id: string | null };
  detail?: Record<string, unknown>;
  clientAddress?: string | null;
}

export async function writeAudit(db: Kysely<ContentDatabase>, entry: AuditEntry, at: Date = new Date()): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      company_id: entry.companyId, user_id: entry.userId, action: entry.action, actor: JSON.stringify(entry.actor),
      detail: JSON.stringify(entry.detail ?? {}), client_address: entry.clientAddress ?? null, created_at: at,
    })
    .execute();
}

export interface AuditRecord {
  id: string;
  action: string;
  userId: string | null;
  actor: { type: string; id: string | null };
  clientAddress: string | null;
  detail: Record<string, unknown>;
  createdAt: Date;
}

/** A company's entries, newest first, older than `before` (an id) when given. */
export async function listAudit(db: Kysely<ContentDatabase>, companyId: string, options: { limit: number; before?: string | undefined }): Promise<AuditRecord[]> {
  let query = db.selectFrom("audit_log").selectAll().where("company_id", "=", companyId).orderBy("id", "desc").limit(options.limit);
  if (options.before !== undefined) query = query.where("id", "<", options.before);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: String(row.id),
    action: row.action,
    userId: row.user_id,
    actor: row.actor,
    clientAddress: row.client_address,
    detail: row.detail,
    createdAt: row.created_at,
  }));
}
