// Company use cases: created by the operators' admin command, read by the other services.
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { companyEventData, parseNewCompany, type Company, type NewCompanyInput } from "./company.ts";
import { findCompany, insertCompany } from "./company.repository.ts";

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
