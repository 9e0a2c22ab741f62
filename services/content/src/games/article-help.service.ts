// The help center of the web support page on a live game's articles: search, related articles
// and "was this helpful?" votes. The caller names the articles the page shows and the language
// each is shown in (the gateway applies the page's language fallback): only those are searched
// and related, each in that language.
import { websearchText } from "@support/search-words";
import type { Kysely } from "kysely";
import { notFound } from "@support/errors";
import type { ContentDatabase } from "../database.ts";
import { requireLiveGame } from "./game.service.ts";
import {
  excerptAround, markdownToPlainText, MAX_RELATED_ARTICLES, MAX_SEARCH_RESULTS, parseSearchWords, searchTerms,
  type ArticleFeedbackCount, type ArticleSearchHit, type ShownArticle,
} from "./article-help.ts";
import { articleFeedbackCounts, relatedArticleKeys, searchArticleDocuments, upsertArticleFeedback } from "./article-help.repository.ts";

type Db = Kysely<ContentDatabase>;

/** The shown articles matching the words, best first, each with a plain-text excerpt. */
export async function searchArticles(db: Db, companyId: string, gameId: string, shown: readonly ShownArticle[], query: unknown, limit = MAX_SEARCH_RESULTS): Promise<ArticleSearchHit[]> {
  const words = parseSearchWords(query);
  await requireLiveGame(db, companyId, gameId);
  const rows = await searchArticleDocuments(db, companyId, gameId, shown, websearchText(words), Math.min(Math.max(1, limit), MAX_SEARCH_RESULTS));
  const terms = searchTerms(words);
  return rows.map((row) => ({ key: row.key, language: row.language, excerpt: excerptAround(markdownToPlainText(row.body), terms) }));
}

/** Up to three keys of shown articles related to `key`: its section's first, then by shared words. */
export async function relatedArticles(db: Db, companyId: string, gameId: string, key: string, language: string, shown: readonly ShownArticle[]): Promise<string[]> {
  await requireLiveGame(db, companyId, gameId);
  return relatedArticleKeys(db, companyId, gameId, key, language, shown, MAX_RELATED_ARTICLES);
}

/** A session's vote on an article: one per session and article, a second one replaces the first. */
export async function recordArticleFeedback(db: Db, companyId: string, gameId: string, key: string, vote: { sessionId: string; language: string; helpful: boolean }): Promise<void> {
  await requireLiveGame(db, companyId, gameId);
  if (vote.sessionId === "" || !(await upsertArticleFeedback(db, companyId, gameId, key, vote))) throw notFound("article not found");
}

/** The votes on a live game's articles, by article id. */
export async function feedbackOfArticles(db: Db, companyId: string, gameId: string): Promise<Map<string, ArticleFeedbackCount[]>> {
  await requireLiveGame(db, companyId, gameId);
  return articleFeedbackCounts(db, companyId, gameId);
}
