// Help articles (a game's resources) as a company's admins keep them in the settings: listed in
// their order, created (a key made of the title when left out), changed (title, section and
// Markdown body per language; the key stays, as the game's links name it), reordered and
// removed. Each change is in the audit log with before/after and published (content.resource.*,
// which evict the reference caches like every content event) in its transaction.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { notFound, validationError } from "@support/errors";
import { writeAudit, type ChangeOrigin } from "../audit/audit-log.ts";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { requireLiveGame } from "./game.service.ts";
import {
  auditedResource, parseNewResource, parseResourceChange, resourceChangedEventData, resourceEventData, resourceKeyFromTitle, sameArticle,
  type GameResource, type NewResourceInput, type ResourceChangeInput,
} from "./game.ts";
import { deleteResource, findResourceForUpdate, insertResource, listResources, updateResource } from "./game.repository.ts";

type Db = Kysely<ContentDatabase>;

async function primaryLanguageOf(db: Db, companyId: string) {
  const company = await findCompany(db, companyId);
  if (!company) throw notFound("company not found");
  return company.primaryLanguage;
}

async function requireArticleForUpdate(db: Db, companyId: string, articleId: string): Promise<GameResource> {
  const found = isUuid(companyId) && isUuid(articleId) ? await findResourceForUpdate(db, companyId, articleId) : undefined;
  if (!found) throw notFound("article not found");
  // An article of a deleted game is gone with it.
  await requireLiveGame(db, companyId, found.gameId);
  return found;
}

const audit = (origin: ChangeOrigin, companyId: string, action: "resource.created" | "resource.updated" | "resource.removed", article: GameResource, before: GameResource | null, after: GameResource | null) => ({
  action, companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
  target: { type: "resource", id: article.id }, before: before && auditedResource(before), after: after && auditedResource(after),
});

/** The articles of a live game of the company, in their order. */
export async function listArticles(db: Db, companyId: string, gameId: string): Promise<GameResource[]> {
  await requireLiveGame(db, companyId, gameId);
  return listResources(db, companyId, gameId);
}

/** A new article, last of the game's; a key is made of the title when left out. */
export async function createArticle(db: Db, companyId: string, gameId: string, input: Omit<NewResourceInput, "key"> & { key?: string | null | undefined }, origin: ChangeOrigin): Promise<GameResource> {
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    const primary = await primaryLanguageOf(trx, companyId);
    const title = typeof input.title === "string" ? input.title : (input.title as Record<string, unknown> | null)?.[primary] ?? Object.values((input.title as object | null) ?? {})[0];
    const key = input.key === undefined || input.key === null || input.key === "" ? resourceKeyFromTitle(title, randomBytes(3).toString("hex")) : input.key;
    const values = parseNewResource({ ...input, key }, primary);
    const article = await uniqueOrConflict(insertResource(trx, companyId, gameId, values, true), `the game already has an article ${values.key}`);
    await writeEvents(trx, [newEvent("content.resource.created", companyId, resourceEventData(article))]);
    await writeAudit(trx, audit(origin, companyId, "resource.created", article, null, article));
    return article;
  });
}

/** Replaces an article's title, section and body; a change that changes nothing writes nothing. */
export async function changeArticle(db: Db, companyId: string, articleId: string, input: ResourceChangeInput, origin: ChangeOrigin): Promise<GameResource> {
  return inTransaction(db, async (trx) => {
    const found = await requireArticleForUpdate(trx, companyId, articleId);
    const change = parseResourceChange(input, await primaryLanguageOf(trx, companyId));
    if (sameArticle(found, change)) return found;
    const article = await updateResource(trx, found.id, change);
    await writeEvents(trx, [newEvent("content.resource.updated", companyId, resourceChangedEventData(article))]);
    await writeAudit(trx, audit(origin, companyId, "resource.updated", article, found, article));
    return article;
  });
}

/**
 * Puts the game's articles in the order given (every article of the game, once). One audit
 * entry on the game names the order before and after (by key); each article that moved is
 * published as content.resource.updated. The current order writes nothing.
 */
export async function reorderArticles(db: Db, companyId: string, gameId: string, articleIds: readonly string[], origin: ChangeOrigin): Promise<GameResource[]> {
  return inTransaction(db, async (trx) => {
    await requireLiveGame(trx, companyId, gameId);
    await trx.selectFrom("game_resources").select("id").where("game_id", "=", gameId).forUpdate().execute();
    const current = await listResources(trx, companyId, gameId);
    const byId = new Map(current.map((article) => [article.id, article]));
    const issues: { path: string; message: string }[] = [];
    const seen = new Set<string>();
    articleIds.forEach((id, index) => {
      const normalized = typeof id === "string" ? id.toLowerCase() : "";
      if (!byId.has(normalized)) issues.push({ path: `/articleIds/${index}`, message: "is not an article of the game" });
      else if (seen.has(normalized)) issues.push({ path: `/articleIds/${index}`, message: "is listed twice" });
      seen.add(normalized);
    });
    if (issues.length === 0 && seen.size !== current.length) issues.push({ path: "/articleIds", message: `must list every article of the game (${current.length})` });
    if (issues.length > 0) throw validationError(issues, "the order is invalid");
    const moved: GameResource[] = [];
    for (const [position, id] of articleIds.map((id) => id.toLowerCase()).entries()) {
      const article = byId.get(id)!;
      if (article.position !== position) moved.push(await updateResource(trx, id, { position }));
    }
    if (moved.length === 0) return current;
    await writeEvents(trx, moved.map((article) => newEvent("content.resource.updated", companyId, resourceChangedEventData(article))));
    const after = await listResources(trx, companyId, gameId);
    await writeAudit(trx, {
      action: "resource.reordered", companyId, userId: null, actor: origin.actor, clientAddress: origin.clientAddress,
      target: { type: "game", id: gameId }, before: { order: current.map((article) => article.key) }, after: { order: after.map((article) => article.key) },
    });
    return after;
  });
}

/** Removes an article: the page no longer lists or opens it (a game's link to its key finds nothing). */
export async function removeArticle(db: Db, companyId: string, articleId: string, origin: ChangeOrigin): Promise<GameResource> {
  return inTransaction(db, async (trx) => {
    const found = await requireArticleForUpdate(trx, companyId, articleId);
    await deleteResource(trx, found.id);
    await writeEvents(trx, [newEvent("content.resource.removed", companyId, resourceChangedEventData(found))]);
    await writeAudit(trx, audit(origin, companyId, "resource.removed", found, found, null));
    return found;
  });
}
