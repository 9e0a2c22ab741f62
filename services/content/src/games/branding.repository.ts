// game_brandings: a game's branding of the web support page; the logo's bytes are read only by
// findLogo (the gateway serving it).
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { defaultBranding, type ColorScheme, type GameBranding, type LogoContentType, type LogoInfo } from "./branding.ts";

type Db = Kysely<ContentDatabase>;

const COLUMNS = [
  "game_id", "company_id", "accent_color", "color_scheme", "logo_sha256", "logo_content_type", "logo_width", "logo_height", "updated_at",
  // The size without the bytes.
] as const;

type Row = {
  game_id: string; company_id: string; accent_color: string | null; color_scheme: string; logo_sha256: string | null; logo_content_type: string | null;
  logo_width: number | null; logo_height: number | null; updated_at: Date; logo_size: number | null;
};

function toBranding(row: Row): GameBranding {
  const logo: LogoInfo | null =
    row.logo_sha256 === null
      ? null
      : { sha256: row.logo_sha256, contentType: row.logo_content_type as LogoContentType, size: Number(row.logo_size ?? 0), width: row.logo_width ?? 0, height: row.logo_height ?? 0 };
  return { gameId: row.game_id, companyId: row.company_id, accentColor: row.accent_color, colorScheme: row.color_scheme as ColorScheme, logo, updatedAt: row.updated_at };
}

export async function findBranding(db: Db, companyId: string, gameId: string, forUpdate = false): Promise<GameBranding> {
  let query = db
    .selectFrom("game_brandings")
    .select(COLUMNS)
    .select((eb) => eb.fn<number | null>("octet_length", ["logo"]).as("logo_size"))
    .where("company_id", "=", companyId)
    .where("game_id", "=", gameId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row ? toBranding(row) : defaultBranding(gameId, companyId);
}

/** Writes the branding; `logo` undefined keeps the stored bytes, null removes them. */
export async function saveBranding(
  db: Db, companyId: string, gameId: string, values: { accentColor: string | null; colorScheme: ColorScheme; logo: { info: LogoInfo; bytes: Buffer } | null | undefined },
): Promise<GameBranding> {
  const logoColumns =
    values.logo === undefined
      ? {}
      : values.logo === null
        ? { logo: null, logo_sha256: null, logo_content_type: null, logo_width: null, logo_height: null }
        : {
            logo: values.logo.bytes, logo_sha256: values.logo.info.sha256, logo_content_type: values.logo.info.contentType,
            logo_width: values.logo.info.width, logo_height: values.logo.info.height,
          };
  const row = await db
    .insertInto("game_brandings")
    .values({ game_id: gameId, company_id: companyId, accent_color: values.accentColor, color_scheme: values.colorScheme, ...logoColumns })
    .onConflict((conflict) => conflict.column("game_id").doUpdateSet({ accent_color: values.accentColor, color_scheme: values.colorScheme, ...logoColumns, updated_at: new Date() }))
    .returning(COLUMNS)
    .returning((eb) => eb.fn<number | null>("octet_length", ["logo"]).as("logo_size"))
    .executeTakeFirstOrThrow();
  return toBranding(row);
}

/** The logo of a live game when `sha256` names its current one. */
export async function findLogo(db: Db, gameId: string, sha256: string): Promise<{ data: Buffer; contentType: string } | undefined> {
  const row = await db
    .selectFrom("game_brandings")
    .innerJoin("games", "games.id", "game_brandings.game_id")
    .select(["game_brandings.logo", "game_brandings.logo_content_type"])
    .where("game_brandings.game_id", "=", gameId)
    .where("game_brandings.logo_sha256", "=", sha256)
    .where("games.deleted_at", "is", null)
    .executeTakeFirst();
  return row?.logo && row.logo_content_type ? { data: row.logo, contentType: row.logo_content_type } : undefined;
}
