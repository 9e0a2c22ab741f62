// Queries of the help center: full-text search over game_resource_search (kept by the
// 2026_12_06 migration's trigger), related articles and the feedback votes.
import { PLANNED_EACH_TIME } from "@support/db";
import { sql, type Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { ArticleFeedbackCount, ShownArticle } from "./article-help.ts";

type Db = Kysely<ContentDatabase>;

/** The shown articles as a relation (key, language) to join on. */
const shownRelation = (shown: readonly ShownArticle[]) =>
  sql`unnest(${shown.map((article) => article.key)}::text[], ${shown.map((article) => article.language)}::text[]) as shown(key, language)`;

/**
 * The shown articles (each in its language only) whose title or body match the words, best
 * first: ts_rank over the title (weight A) and body (B), then the game's order. The index is
 * probed with the words read in every configuration, then each row is checked with its own.
 */
export async function searchArticleDocuments(db: Db, companyId: string, gameId: string, shown: readonly ShownArticle[], text: string, limit: number) {
  if (shown.length === 0) return [];
  // Planned for its words each time: a generic plan (after five searches) would not know them.
  const { rows } = await sql<{ key: string; language: string; body: string }>`${sql.raw(PLANNED_EACH_TIME)}
    select r.key, s.language, s.body
    from game_resource_search s
    join game_resources r on r.id = s.resource_id
    join ${shownRelation(shown)} on shown.key = r.key and shown.language = s.language
    where s.company_id = ${companyId}::uuid and s.game_id = ${gameId}::uuid
      and s.document @@ article_search_tsquery(${text}::text) and s.document @@ websearch_to_tsquery(s.config, ${text}::text)
    order by ts_rank(s.document, websearch_to_tsquery(s.config, ${text}::text)) desc, r.position, r.key
    limit ${limit}`.execute(db);
  return rows;
}

/**
 * Up to `limit` keys of the shown articles related to the article `key` (shown in `language`):
 * those of its section first, then those sharing the most of its indexed words (the lexemes of
 * its tsvector, stemmed as the search stems them), then the game's order; never the article itself.
 */
export async function relatedArticleKeys(db: Db, companyId: string, gameId: string, key: string, language: string, shown: readonly ShownArticle[], limit: number): Promise<string[]> {
  if (shown.length === 0) return [];
  const { rows } = await sql<{ key: string }>`
    with source as (
      select r.id, r.section, coalesce(tsvector_to_array(s.document), '{}'::text[]) as words
      from game_resources r
      left join game_resource_search s on s.resource_id = r.id and s.language = ${language}
      where r.company_id = ${companyId}::uuid and r.game_id = ${gameId}::uuid and r.key = ${key}
    )
    select r.key
    from source
    join game_resources r on r.company_id = ${companyId}::uuid and r.game_id = ${gameId}::uuid and r.id <> source.id
    join ${shownRelation(shown)} on shown.key = r.key
    left join game_resource_search s on s.resource_id = r.id and s.language = shown.language
    cross join lateral (
      select count(*) as shared from unnest(coalesce(tsvector_to_array(s.document), '{}'::text[])) word where word = any(source.words)
    ) overlap
    where (source.section <> '{}'::jsonb and r.section = source.section) or overlap.shared > 0
    order by (source.section <> '{}'::jsonb and r.section = source.section) desc, overlap.shared desc, r.position, r.key
    limit ${limit}`.execute(db);
  return rows.map((row) => row.key);
}

/** Records a session's vote on the game's article `key` (replacing its earlier one); false when the game has no such article. */
export async function upsertArticleFeedback(db: Db, companyId: string, gameId: string, key: string, vote: { sessionId: string; language: string; helpful: boolean }): Promise<boolean> {
  const { rows } = await sql<{ resource_id: string }>`
    insert into game_resource_feedback (resource_id, company_id, session_id, language, helpful)
    select r.id, r.company_id, ${vote.sessionId}, ${vote.language}, ${vote.helpful}
    from game_resources r where r.company_id = ${companyId}::uuid and r.game_id = ${gameId}::uuid and r.key = ${key}
    on conflict (resource_id, session_id) do update
      set helpful = excluded.helpful, language = excluded.language, updated_at = clock_timestamp()
    returning resource_id`.execute(db);
  return rows.length > 0;
}

/** The votes on the game's articles, by article id, per language (languages in code order). */
export async function articleFeedbackCounts(db: Db, companyId: string, gameId: string): Promise<Map<string, ArticleFeedbackCount[]>> {
  const rows = await db
    .selectFrom("game_resource_feedback as f")
    .innerJoin("game_resources as r", "r.id", "f.resource_id")
    .select(["f.resource_id", "f.language"])
    .select(sql<string>`count(*) filter (where f.helpful)`.as("helpful"))
    .select(sql<string>`count(*) filter (where not f.helpful)`.as("not_helpful"))
    .where("f.company_id", "=", companyId)
    .where("r.game_id", "=", gameId)
    .groupBy(["f.resource_id", "f.language"])
    .orderBy("f.language")
    .execute();
  const counts = new Map<string, ArticleFeedbackCount[]>();
  for (const row of rows) {
    const list = counts.get(row.resource_id) ?? [];
    list.push({ language: row.language, helpful: Number(row.helpful), notHelpful: Number(row.not_helpful) });
    counts.set(row.resource_id, list);
  }
  return counts;
}
