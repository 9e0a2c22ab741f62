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
