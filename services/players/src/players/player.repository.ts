// Queries on players.players. The upserts target the two partial unique indexes of the table: two concurrent first
// contacts of one player meet in the index and produce one row.
import { sql, type Kysely } from "@support/db";
import type { ExpressionBuilder, InsertQueryBuilder, OnConflictBuilder, Selectable } from "kysely";
import type { PlayersDatabase } from "../database.ts";
import type { PagePosition } from "./paging.ts";
import type { BlockValues, Player, PlayerInfo, PlayerKey, PlayerOutcome, ResolveValues, Tier } from "./player.ts";
import type { PlayerTable } from "./player.table.ts";

type Db = Kysely<PlayersDatabase>;
/**
 * The columns a Player is read from. Named rather than `*`: Postgres prepares a statement once per
 * connection only when its result cannot change under it (a migration adding a column would).
 */
const PLAYER_COLUMNS = [
  "id", "company_id", "game_id", "external_id", "email", "name", "tier", "blocked", "blocked_at", "created_at", "updated_at",
] as const satisfies readonly (keyof PlayerTable)[];
type Row = Pick<Selectable<PlayerTable>, (typeof PLAYER_COLUMNS)[number]>;

function toPlayer(row: Row): Player {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    externalId: row.external_id,
    name: row.name,
    email: row.email,
    tier: row.tier as Tier | null,
    blocked: row.blocked,
    blockedAt: row.blocked_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toOutcome(row: Row & { created: boolean }): PlayerOutcome {
  const { created, ...player } = row;
  return { player: toPlayer(player), created };
}

// The conflict target must repeat the partial index's predicate for Postgres to infer it.
function onKey(oc: OnConflictBuilder<PlayersDatabase, "players">, key: PlayerKey) {
  return key.kind === "external"
    ? oc.columns(["game_id", "external_id"]).where("external_id", "is not", null)
    : oc.columns(["game_id", "email_normalized"]).where("external_id", "is", null).where("email_normalized", "is not", null);
}

// Block times are kept to the millisecond: the blocked list's cursors carry them as JavaScript dates.
const blockedNow = sql<Date>`date_trunc('milliseconds', now())`;

// `xmax = 0` holds for a row this statement inserted, not for one it updated.
const created = sql<boolean>`(xmax = 0)`.as("created");

interface NewPlayerRow {
  companyId: string;
  gameId: string;
  key: PlayerKey;
  name: string | null;
  email: string | null;
  emailNormalized: string | null;
  tier: Tier | null;
  blocked: boolean;
}

function insertPlayer(db: Db, values: NewPlayerRow): InsertQueryBuilder<PlayersDatabase, "players", object> {
  const { key } = values;
  return db
    .insertInto("players")
    .values({
      company_id: values.companyId,
      game_id: values.gameId,
      external_id: key.kind === "external" ? key.externalId : null,
      email: values.email,
      email_normalized: values.emailNormalized,
      name: values.name,
      tier: values.tier,
      blocked: values.blocked,
      blocked_at: values.blocked ? blockedNow : null,
    });
}

/**
 * ResolvePlayer's write: inserts the player, or updates the given name/email/tier of the
 * existing one. Returns nothing when the existing row was left alone (nothing to change, or it
 * belongs to another company); the caller then reads it. A block is never touched.
 */
export async function upsertResolvedPlayer(db: Db, values: ResolveValues): Promise<PlayerOutcome | undefined> {
  const { key } = values;
  const row = await insertPlayer(db, {
    companyId: values.companyId,
    gameId: values.gameId,
    key,
    name: values.name,
    email: values.email,
    emailNormalized: values.emailNormalized,
    tier: values.tierOnCreate,
    blocked: false,
  })
    .onConflict((oc) => {
      // Only what is given changes (a tier not given is not the new-player default of tier 1: keep the stored one).
      // An email player is matched by its email, so its stored address stays as first given;
      // an identified player's email is an attribute and follows what the game sends.
      const name = sql<string | null>`coalesce(${values.name}::text, players.name)`;
      const tier = sql<number | null>`coalesce(${values.tier}::integer, players.tier)`;
      const email = key.kind === "external" ? sql<string | null>`coalesce(${values.email}::text, players.email)` : sql<string | null>`players.email`;
      const emailNormalized =
        key.kind === "external" ? sql<string | null>`coalesce(${values.emailNormalized}::text, players.email_normalized)` : sql<string | null>`players.email_normalized`;
      // Only a row of the same company may be touched: another company's game is not ours.
      return onKey(oc, key)
        .doUpdateSet({ name, tier, email, email_normalized: emailNormalized, updated_at: sql<Date>`now()` })
        .whereRef("players.company_id", "=", "excluded.company_id")
        .where(sql<boolean>`(players.name, players.email, players.tier) is distinct from (${name}, ${email}, ${tier})`);
    })
    .returning(PLAYER_COLUMNS)
    .returning(created)
    .executeTakeFirst();
  return row && toOutcome(row);
}

/**
 * BlockPlayer's write: inserts the player blocked (so the block holds before its first
 * contact), or blocks the existing one. Returns nothing when the row was already blocked or
 * belongs to another company.
 */
export async function upsertBlockedPlayer(db: Db, values: BlockValues): Promise<PlayerOutcome | undefined> {
  const { key } = values;
  const email = key.kind === "email" ? key.email : null;
  const emailNormalized = key.kind === "email" ? key.emailNormalized : null;
  const row = await insertPlayer(db, { companyId: values.companyId, gameId: values.gameId, key, name: null, email, emailNormalized, tier: values.tierOnCreate, blocked: true })
    .onConflict((oc) =>
      onKey(oc, key)
        .doUpdateSet({ blocked: true, blocked_at: blockedNow, updated_at: sql<Date>`now()` })
        .whereRef("players.company_id", "=", "excluded.company_id")
        .where("players.blocked", "=", false),
    )
    .returning(PLAYER_COLUMNS)
    .returning(created)
    .executeTakeFirst();
  return row && toOutcome(row);
}

/** Lifts a block; nothing when no such blocked player exists. */
export async function markUnblocked(db: Db, companyId: string, gameId: string, key: PlayerKey): Promise<Player | undefined> {
  const row = await db
    .updateTable("players")
    .set({ blocked: false, blocked_at: null, updated_at: sql<Date>`now()` })
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .where((eb) => keyCondition(eb, key))
    .where("blocked", "=", true)
    .returning(PLAYER_COLUMNS)
    .executeTakeFirst();
  return row && toPlayer(row);
}

function keyCondition(eb: ExpressionBuilder<PlayersDatabase, "players">, key: PlayerKey) {
  return key.kind === "external"
    ? eb("external_id", "=", key.externalId)
    : eb.and([eb("external_id", "is", null), eb("email_normalized", "=", key.emailNormalized)]);
}

export async function findPlayerByKey(db: Db, companyId: string, gameId: string, key: PlayerKey): Promise<Player | undefined> {
  const row = await db
    .selectFrom("players")
    .select(PLAYER_COLUMNS)
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId)
    .where((eb) => keyCondition(eb, key))
    .executeTakeFirst();
  return row && toPlayer(row);
}

export async function findPlayerById(db: Db, companyId: string, playerId: string): Promise<Player | undefined> {
  const row = await db
    .selectFrom("players")
    .select(PLAYER_COLUMNS)
    .where("company_id", "=", companyId)
    .where("id", "=", playerId)
    .executeTakeFirst();
  return row && toPlayer(row);
}

/** Sets what is given; nothing when no such player exists or nothing would change. */
export async function updatePlayerInfo(db: Db, companyId: string, playerId: string, info: PlayerInfo): Promise<Player | undefined> {
  const name = sql<string | null>`coalesce(${info.name}::text, name)`;
  const tier = sql<number | null>`coalesce(${info.tier}::integer, tier)`;
  const row = await db
    .updateTable("players")
    .set({ name, tier, updated_at: sql<Date>`now()` })
    .where("company_id", "=", companyId)
    .where("id", "=", playerId)
    .where(sql<boolean>`(name, tier) is distinct from (${name}, ${tier})`)
    .returning(PLAYER_COLUMNS)
    .executeTakeFirst();
  return row && toPlayer(row);
}

/** A game's blocked players, the most recently blocked first; `after` continues a page. */
export async function listBlockedPlayers(db: Db, options: { companyId: string; gameId: string; after: PagePosition | undefined; limit: number }): Promise<Player[]> {
  let query = db
    .selectFrom("players")
    .select(PLAYER_COLUMNS)
    .where("company_id", "=", options.companyId)
    .where("game_id", "=", options.gameId)
    .where("blocked", "=", true);
  const { after } = options;
  if (after) query = query.where(sql<boolean>`(blocked_at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  const rows = await query.orderBy("blocked_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
  return rows.map(toPlayer);
}
