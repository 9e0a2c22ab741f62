// Queries on companies.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { LanguageCode } from "../common/language.ts";
import type { Company, EmailSender, NewCompany } from "./company.ts";
import type { CompanyTable } from "./company.table.ts";

type Db = Kysely<ContentDatabase>;

function toCompany(row: Selectable<CompanyTable>): Company {
  return {
    id: row.id,
    name: row.name,
    primaryLanguage: row.primary_language as LanguageCode,
    allowImmediateDeletion: row.allow_immediate_deletion,
    autoCloseWaitingAfterHours: row.auto_close_waiting_after_hours,
    apiRateLimitPerMinute: row.api_rate_limit_per_minute,
    requireTwoFactor: row.require_two_factor,
    emailSender: { name: row.email_sender_name, address: row.email_sender_address },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertCompany(db: Db, company: NewCompany): Promise<Company> {
  const row = await db
    .insertInto("companies")
    .values({
      name: company.name,
      primary_language: company.primaryLanguage,
      allow_immediate_deletion: company.allowImmediateDeletion,
      auto_close_waiting_after_hours: company.autoCloseWaitingAfterHours,
      api_rate_limit_per_minute: company.apiRateLimitPerMinute,
      require_two_factor: company.requireTwoFactor,
      email_sender_name: company.emailSender.name,
      email_sender_address: company.emailSender.address,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCompany(row);
}

export async function findCompany(db: Db, companyId: string): Promise<Company | undefined> {
  const row = await db.selectFrom("companies").selectAll().where("id", "=", companyId).executeTakeFirst();
  return row && toCompany(row);
}

/** Sets the company's mail sender when it differs; returns whether it did (an equal one writes nothing). */
export async function updateEmailSender(db: Db, companyId: string, sender: EmailSender): Promise<boolean> {
  const result = await db
    .updateTable("companies")
    .set({ email_sender_name: sender.name, email_sender_address: sender.address, updated_at: new Date() })
    .where("id", "=", companyId)
    .where((eb) => eb.or([eb("email_sender_name", "is distinct from", sender.name), eb("email_sender_address", "is distinct from", sender.address)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
