// Company use cases: created by the operators' admin command, read by the other services.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { throwIfInvalid, type ValidationIssue } from "../common/validation.ts";
import { companyEventData, parseEmailSender, parseNewCompany, type Company, type EmailSenderInput, type NewCompanyInput } from "./company.ts";
import { findCompany, insertCompany, updateEmailSender } from "./company.repository.ts";

type Db = Kysely<ContentDatabase>;

export async function createCompany(db: Db, input: NewCompanyInput): Promise<Company> {
  const values = parseNewCompany(input);
  return inTransaction(db, async (trx) => {
    const company = await insertCompany(trx, values);
    await writeEvents(trx, [newEvent("content.company.created", company.id, companyEventData(company))]);
    return company;
  });
}

export async function getCompany(db: Db, companyId: string): Promise<Company> {
  const company = isUuid(companyId) ? await findCompany(db, companyId) : undefined;
  if (!company) throw notFound("company not found");
  return company;
}

/**
 * Sets the sender of the company's mails to players (a tenant file applied again: its
 * company.email is the one setting an edit of the file changes on the company it created).
 * Absent parts go back to the defaults; returns whether anything changed. No event: the email
 * service asks GetCompany when it queues a mail.
 */
export async function setCompanyEmailSender(db: Db, companyId: string, input: EmailSenderInput | undefined): Promise<boolean> {
  const issues: ValidationIssue[] = [];
  const sender = parseEmailSender(input, issues);
  throwIfInvalid(issues);
  await getCompany(db, companyId);
  return updateEmailSender(db, companyId, sender);
}
