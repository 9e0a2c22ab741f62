// Queries on saved views.
import type { Kysely, Selectable } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { AgentView } from "../tickets/agent-list.ts";
import type { SavedView, SavedViewValues } from "./saved-view.ts";

type Db = Kysely<TicketsDatabase>;

function viewOf(row: Selectable<TicketsDatabase["saved_views"]>): SavedView {
  return { id: row.id, companyId: row.company_id, userId: row.user_id, name: row.name, q: row.q, view: row.view as AgentView | null, createdAt: row.created_at };
}

export async function listSavedViews(db: Db, companyId: string, userId: string): Promise<SavedView[]> {
  const rows = await db.selectFrom("saved_views").selectAll().where("company_id", "=", companyId).where("user_id", "=", userId).orderBy("name").orderBy("id").execute();
  return rows.map(viewOf);
}

export async function countSavedViews(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom("saved_views").select((eb) => eb.fn.countAll<string>().as("count")).where("user_id", "=", userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertSavedView(db: Db, companyId: string, userId: string, values: SavedViewValues): Promise<SavedView> {
  const row = await db.insertInto("saved_views").values({ company_id: companyId, user_id: userId, name: values.name, q: values.q, view: values.view }).returningAll().executeTakeFirstOrThrow();
  return viewOf(row);
}

/** Deletes the user's view; false when the user has no view with that id. */
export async function deleteSavedView(db: Db, companyId: string, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("saved_views").where("company_id", "=", companyId).where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
