// Saved view use cases: a user lists, saves and deletes their own views.
import { conflict, failedPrecondition, isUuid, notFound, validationError } from "@support/errors";
import type { Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import { MAX_SAVED_VIEWS, parseSavedView, type SavedView } from "./saved-view.ts";
import { countSavedViews, deleteSavedView, insertSavedView, listSavedViews } from "./saved-view.repository.ts";

type Db = Kysely<TicketsDatabase>;

function ids(companyId: string, userId: string): { companyId: string; userId: string } {
  if (!isUuid(userId)) throw validationError([{ path: "/userId", message: "must be a uuid" }]);
  if (!isUuid(companyId)) throw notFound("company not found");
  return { companyId: companyId.toLowerCase(), userId: userId.toLowerCase() };
}

export function listViews(db: Db, companyId: string, userId: string): Promise<SavedView[]> {
  const who = ids(companyId, userId);
  return listSavedViews(db, who.companyId, who.userId);
}

export async function saveView(db: Db, companyId: string, userId: string, input: { name: string; q: string; view: string }): Promise<SavedView> {
  const who = ids(companyId, userId);
  const values = parseSavedView(input);
  return db.transaction().execute(async (trx) => {
    if ((await countSavedViews(trx, who.userId)) >= MAX_SAVED_VIEWS) {
      throw failedPrecondition(`A user keeps at most ${MAX_SAVED_VIEWS} saved views: delete one first`, { type: "TOO_MANY_SAVED_VIEWS" });
    }
    try {
      return await insertSavedView(trx, who.companyId, who.userId, values);
    } catch (error) {
      if ((error as { code?: string }).code === "23505") throw conflict(`You already have a view named ${values.name}`);
      throw error;
    }
  });
}

export async function deleteView(db: Db, companyId: string, userId: string, id: string): Promise<void> {
  const who = ids(companyId, userId);
  if (!isUuid(id) || !(await deleteSavedView(db, who.companyId, who.userId, id.toLowerCase()))) throw notFound("saved view not found");
}
