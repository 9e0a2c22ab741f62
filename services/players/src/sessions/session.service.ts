// Session use cases: create a web support session for a public environment token, and
// read one back by its code (for the player side). Creating writes its outbox event in the
// same transaction as the session.
import type { Kysely } from "@support/db";
import { notFound } from "@support/errors";
import type { PlayersDatabase } from "../database.ts";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import type { GameDirectory } from "./game-directory.ts";
import { verifyMetadataToken } from "./metadata-token.ts";
import {
  checkLanguage, checkResource, checkVerificationAllowed, createSessionCode, hashSessionCode, mergeMetadata, parseSignedMetadataClaim,
  parseUnsignedMetadata, playerKeysOf, sessionCreatedData, sessionEventTypes, typeQueryFields, verificationOf,
  type SessionMetadata, type SupportSession,
} from "./session.ts";
import { findLiveSessionByCodeHash, insertSession } from "./session.repository.ts";

export interface SessionSettings {
  /** Lifetime of a session (24 hours). */
  ttlSeconds: number;
}

export interface SessionContext {
  db: Kysely<PlayersDatabase>;
  games: GameDirectory;
  settings: SessionSettings;
}

export interface CreateSessionInput {
  token: string;
  language?: string | undefined;
  resource?: string | undefined;
  signedMetadataToken?: string | undefined;
  /** Unsigned metadata as plain JSON: `{player?, tags?, fields?}`. */
  metadata: unknown;
  /** GET /support/sessions/redirect: the unsigned field values are query text, typed by the game's field definitions. */
  fieldsFromQuery: boolean;
}

export interface CreatedSession {
  session: SupportSession;
  /** The player's credential; returned only here. */
  code: string;
}

// An empty query parameter (`resource=&signedMetadataToken=`, as templated links produce) is
// "not given".
const given = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value);

export async function createSupportSession(ctx: SessionContext, input: CreateSessionInput, now: Date = new Date()): Promise<CreatedSession> {
  const language = checkLanguage(given(input.language));
  const unsigned = parseUnsignedMetadata(input.metadata);
  const game = await ctx.games.environmentByToken(input.token);
  const resource = checkResource(given(input.resource), game.resourceKeys);

  const token = given(input.signedMetadataToken);
  const signed = token === undefined ? undefined : parseSignedMetadataClaim(await verifyMetadataToken(token, game.jwks, now));

  let typedUnsigned: SessionMetadata = unsigned;
  if (input.fieldsFromQuery && unsigned.fields !== undefined && Object.keys(unsigned.fields).length > 0) {
    typedUnsigned = { ...unsigned, fields: typeQueryFields(unsigned.fields, await ctx.games.fieldTypes(game.companyId, game.gameId)) };
  }
  const metadata = mergeMetadata(typedUnsigned, signed);
  const verification = verificationOf(signed, metadata);
  checkVerificationAllowed(verification, metadata, game.blockUnverifiedPlayers);

  const code = createSessionCode();
  const player = playerKeysOf(metadata);
  const session = await ctx.db.transaction().execute(async (trx) => {
    const created = await insertSession(trx, {
      codeHash: hashSessionCode(code),
      companyId: game.companyId,
      gameId: game.gameId,
      environmentId: game.environmentId,
      language,
      resource,
      metadata,
      verification,
      playerExternalId: player.externalId,
      playerEmailNormalized: player.emailNormalized,
      ttlSeconds: ctx.settings.ttlSeconds,
    });
    await writeEvents(trx, [newEvent(sessionEventTypes.created, created.companyId, sessionCreatedData(created))]);
    return created;
  });
  return { session, code };
}

/** A session that has not expired, by its code; NOT_FOUND otherwise (unknown and expired look alike). */
export async function getSupportSession(db: Kysely<PlayersDatabase>, code: string): Promise<SupportSession> {
  const session = code.length > 0 && code.length <= 256 ? await findLiveSessionByCodeHash(db, hashSessionCode(code)) : undefined;
  if (!session) throw notFound("No live support session has this code");
  return session;
}
