// Queries on companies' single sign-on settings and the attempts between redirect and callback.
import { sql, type Kysely, type Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { SingleSignOnConfig } from "./single-sign-on.ts";

type Db = Kysely<ContentDatabase>;

function configOf(row: Selectable<ContentDatabase["company_single_sign_on"]>): SingleSignOnConfig {
  return {
    companyId: row.company_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretKey: row.client_secret_key,
    allowJustInTimeUsers: row.allow_just_in_time_users,
    emailDomains: row.email_domains,
  };
}

export async function insertSingleSignOn(db: Db, config: SingleSignOnConfig): Promise<void> {
  await db
    .insertInto("company_single_sign_on")
    .values({
      company_id: config.companyId, issuer: config.issuer, client_id: config.clientId, client_secret_key: config.clientSecretKey,
      allow_just_in_time_users: config.allowJustInTimeUsers, email_domains: config.emailDomains,
    })
    .execute();
}

export async function findSingleSignOn(db: Db, companyId: string): Promise<SingleSignOnConfig | undefined> {
  const row = await db.selectFrom("company_single_sign_on").selectAll().where("company_id", "=", companyId).executeTakeFirst();
  return row && configOf(row);
}

/** The settings of every company whose email domains list this one. */
export async function findSingleSignOnByDomain(db: Db, domain: string): Promise<SingleSignOnConfig[]> {
  const rows = await db.selectFrom("company_single_sign_on").selectAll().where(sql<boolean>`${domain} = any(email_domains)`).execute();
  return rows.map(configOf);
}

export interface SingleSignOnAttempt {
  id: string;
  companyId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  returnTo: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertAttempt(db: Db, values: Omit<SingleSignOnAttempt, "id" | "usedAt"> & { tokenHash: string; now: Date }): Promise<void> {
  await db
    .insertInto("single_sign_on_attempts")
    .values({
      token_hash: values.tokenHash, company_id: values.companyId, state: values.state, nonce: values.nonce, code_verifier: values.codeVerifier,
      redirect_uri: values.redirectUri, return_to: values.returnTo, created_at: values.now, expires_at: values.expiresAt,
    })
    .execute();
}

/** The attempt of a token, used up in the same statement (single use): undefined when unknown or used before. */
export async function claimAttempt(db: Db, tokenHash: string, now: Date): Promise<SingleSignOnAttempt | undefined> {
  const row = await db
    .updateTable("single_sign_on_attempts")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return (
    row && {
      id: row.id, companyId: row.company_id, state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier,
      redirectUri: row.redirect_uri, returnTo: row.return_to, expiresAt: row.expires_at, usedAt: row.used_at,
    }
  );
}

/** Attempts are worth nothing after they expire: rows older than `before` go. */
export async function deleteOldAttempts(db: Db, before: Date): Promise<void> {
  await db.deleteFrom("single_sign_on_attempts").where("expires_at", "<", before).execute();
}
