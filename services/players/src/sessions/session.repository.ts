// Queries on players.support_sessions. Sessions are found by the hash of their code only.
import { sql, type Kysely } from "@support/db";
import type { Selectable } from "kysely";
import type { PlayersDatabase } from "../database.ts";
import type { SessionMetadata, SupportSession, Verification } from "./session.ts";
import type { SupportSessionTable } from "./session.table.ts";

type Db = Kysely<PlayersDatabase>;

/** The columns a session is read from, named rather than `*` so that its statements are prepared (see the players' repository). */
const SESSION_COLUMNS = [
  "id", "company_id", "game_id", "environment_id", "language", "resource", "metadata", "verification", "email_verified_at", "created_at", "expires_at",
] as const satisfies readonly (keyof SupportSessionTable)[];

function toSession(row: Pick<Selectable<SupportSessionTable>, (typeof SESSION_COLUMNS)[number]>): SupportSession {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    environmentId: row.environment_id,
    language: row.language,
    resource: row.resource,
    metadata: row.metadata,
    verification: row.verification,
    emailVerifiedAt: row.email_verified_at,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export interface NewSessionRow {
  codeHash: string;
  companyId: string;
  gameId: string;
  environmentId: string;
  language: string | null;
  resource: string | null;
  metadata: SessionMetadata;
  verification: Verification;
  playerExternalId: string | null;
  playerEmailNormalized: string | null;
  ttlSeconds: number;
}

/** Inserts a session expiring `ttlSeconds` after now (the database clock). */
export async function insertSession(db: Db, values: NewSessionRow): Promise<SupportSession> {
  const row = await db
    .insertInto("support_sessions")
    .values({
      code_hash: values.codeHash,
      company_id: values.companyId,
      game_id: values.gameId,
      environment_id: values.environmentId,
      language: values.language,
      resource: values.resource,
      metadata: JSON.stringify(values.metadata),
      verification: values.verification,
      player_external_id: values.playerExternalId,
      player_email_normalized: values.playerEmailNormalized,
      expires_at: sql<Date>`now() + make_interval(secs => ${values.ttlSeconds})`,
    })
    .returning(SESSION_COLUMNS)
    .executeTakeFirstOrThrow();
  return toSession(row);
}

/** The session with this code hash that has not expired yet. */
export async function findLiveSessionByCodeHash(db: Db, codeHash: string): Promise<SupportSession | undefined> {
  const row = await db
    .selectFrom("support_sessions")
    .select(SESSION_COLUMNS)
    .where("code_hash", "=", codeHash)
    .where("expires_at", ">", sql<Date>`now()`)
    .executeTakeFirst();
  return row && toSession(row);
}

/** Deletes expired sessions (they are useless as credentials and hold player data); returns how many. */
export async function deleteExpiredSessions(db: Db): Promise<number> {
  const result = await db.deleteFrom("support_sessions").where("expires_at", "<=", sql<Date>`now()`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
