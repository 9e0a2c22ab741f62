// Queries on tenant_applications.
import { sql, type Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { RecordedTenant } from "./tenant.ts";

type Db = Kysely<ContentDatabase>;

/**
 * Holds the digest until the caller's transaction ends, so two applications of one file run
 * one after the other and the second finds the first's record.
 */
export async function lockDigest(trx: Db, digest: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`tenant:${digest}`}, 0))`.execute(trx);
}

/** Holds the company until the caller's transaction ends: two files converging it run one after the other. */
export async function lockTenantCompany(trx: Db, companyId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`tenant-company:${companyId}`}, 0))`.execute(trx);
}

/** Whether a tenant file created the company (an application of one is recorded for it). */
export async function isTenantFileCompany(db: Db, companyId: string): Promise<boolean> {
  return (await db.selectFrom("tenant_applications").select("digest").where("company_id", "=", companyId).limit(1).executeTakeFirst()) !== undefined;
}

/** The companies created by tenant files whose name is `name` (but `exceptCompanyId`), oldest first. */
export async function listTenantFileCompaniesNamed(db: Db, name: string, exceptCompanyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("companies")
    .select(["companies.id"])
    .where("companies.name", "=", name)
    .where("companies.id", "<>", exceptCompanyId)
    .where((eb) => eb.exists(eb.selectFrom("tenant_applications").select("digest").whereRef("tenant_applications.company_id", "=", "companies.id")))
    .orderBy("companies.created_at")
    .execute();
  return rows.map((row) => row.id);
}

export async function findTenantApplication(db: Db, digest: string): Promise<RecordedTenant | undefined> {
  const row = await db.selectFrom("tenant_applications").select("result").where("digest", "=", digest).executeTakeFirst();
  return row?.result;
}

export async function insertTenantApplication(db: Db, digest: string, record: RecordedTenant): Promise<void> {
  await db
    .insertInto("tenant_applications")
    .values({ digest, company_id: record.companyId, result: JSON.stringify(record) })
    .execute();
}
