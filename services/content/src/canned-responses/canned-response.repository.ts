// Queries on canned responses.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { CannedResponse, CannedResponseValues } from "./canned-response.ts";

type Db = Kysely<ContentDatabase>;
type Row = Selectable<ContentDatabase["canned_responses"]>;

function responseOf(row: Row): CannedResponse {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    name: row.name,
    texts: row.texts,
    actions: row.actions,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertCannedResponse(db: Db, companyId: string, values: CannedResponseValues, createdBy: string | null): Promise<CannedResponse> {
  const row = await db
    .insertInto("canned_responses")
    .values({ company_id: companyId, game_id: values.gameId, name: values.name, texts: JSON.stringify(values.texts), actions: JSON.stringify(values.actions), created_by: createdBy, retired_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return responseOf(row);
}

export async function updateCannedResponse(db: Db, companyId: string, id: string, values: CannedResponseValues): Promise<CannedResponse | undefined> {
  const row = await db
    .updateTable("canned_responses")
    .set({ game_id: values.gameId, name: values.name, texts: JSON.stringify(values.texts), actions: JSON.stringify(values.actions), updated_at: new Date() })
    .where("company_id", "=", companyId)
    .where("id", "=", id)
    .where("retired_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return row && responseOf(row);
}

export async function retireCannedResponse(db: Db, companyId: string, id: string): Promise<CannedResponse | undefined> {
  const row = await db
    .updateTable("canned_responses")
    .set({ retired_at: new Date(), updated_at: new Date() })
    .where("company_id", "=", companyId)
    .where("id", "=", id)
    .where("retired_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return row && responseOf(row);
}

/**
 * The company's live responses, by name: every one, or those for any of `gameIds` and the
 * company-wide ones (`gameIds` given).
 */
export async function listCannedResponses(db: Db, companyId: string, gameIds?: readonly string[]): Promise<CannedResponse[]> {
  let query = db.selectFrom("canned_responses").selectAll().where("company_id", "=", companyId).where("retired_at", "is", null);
  if (gameIds !== undefined) {
    query = query.where((eb) => (gameIds.length === 0 ? eb("game_id", "is", null) : eb.or([eb("game_id", "is", null), eb("game_id", "in", [...gameIds])])));
  }
  const rows = await query.orderBy("name").orderBy("id").execute();
  return rows.map(responseOf);
}
