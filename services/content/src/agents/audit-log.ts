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
  // Two-factor (two-factor.service.ts).
  | "two_factor.enrolment_started"
  | "two_factor.enrolment_failed"
  | "two_factor.enabled"
  | "two_factor.challenged"
  | "two_factor.failed"
  | "two_factor.recovery_code_used"
  | "two_factor.reset";

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
