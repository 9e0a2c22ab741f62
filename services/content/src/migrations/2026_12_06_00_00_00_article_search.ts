// The help center of the web support page: full-text search over a game's articles, "was this
// helpful?" votes and related articles.
//
// game_resource_search holds one row per article and language (every language of its title or
// body), with a stored tsvector built with that language's text search configuration, the title
// weighted A and the body B (so ts_rank puts a title match above a body match). A trigger on
// game_resources keeps it in step, whoever writes the article (an admin, a tenant file, an
// operator), and the backfill below makes existing articles searchable. Postgres cannot split
// Japanese, Chinese or Korean into words, so runs of those scripts are indexed (and searched) as
// overlapping pairs of characters, as the tickets service does for ticket search.
//
// game_resource_feedback holds one vote per web support session and article (a second vote
// replaces the first), with the language the article was shown in.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Ideographs, kana and Hangul, as the tickets service's search reads them. */
const CJK_CLASS = "\\u1100-\\u11ff\\u3040-\\u30ff\\u3130-\\u318f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff66-\\uff9f";

/** Every configuration article_search_config returns. */
const SEARCH_CONFIGS = [
  "simple", "english", "german", "spanish", "french", "portuguese", "italian", "dutch", "russian", "turkish", "finnish", "swedish",
  "danish", "norwegian", "hungarian", "romanian", "greek", "indonesian", "arabic",
];

export async function up(db: AnyDb): Promise<void> {
  // The Snowball stemmer of a language where Postgres has one, `simple` otherwise.
  await sql`
    create function article_search_config(language text) returns regconfig
    language sql immutable parallel safe strict as $$
      select (case
        when language = 'en' then 'english'
        when language = 'de' then 'german'
        when language in ('es', 'es-AR', 'es-MX') then 'spanish'
        when language = 'fr' then 'french'
        when language in ('pt', 'pt-BR') then 'portuguese'
        when language = 'it' then 'italian'
        when language = 'nl' then 'dutch'
        when language = 'ru' then 'russian'
        when language = 'tr' then 'turkish'
        when language = 'fi' then 'finnish'
        when language = 'sv' then 'swedish'
        when language = 'da' then 'danish'
        when language in ('no', 'nb') then 'norwegian'
        when language = 'hu' then 'hungarian'
        when language = 'ro' then 'romanian'
        when language = 'el' then 'greek'
        when language = 'id' then 'indonesian'
        when language = 'ar' then 'arabic'
        else 'simple'
      end)::regconfig
    $$`.execute(db);

  // The words read with every configuration (any may match): a constant for the planner, so that
  // the GIN index answers before each row is checked with its own configuration.
  await sql`
    create function article_search_tsquery(words text) returns tsquery
    language sql immutable parallel safe strict as $$
      select ${sql.raw(SEARCH_CONFIGS.map((config) => `websearch_to_tsquery('${config}', words)`).join("\n        || "))}
    $$`.execute(db);

  // Runs of CJK characters replaced by their overlapping pairs ("ログイン" -> "ログ グイ イン").
  await sql`
    create function article_cjk_bigrams(body text) returns text
    language sql immutable parallel safe strict as $$
      select coalesce(string_agg(case
          when length(m.part[1]) > 1 and m.part[1] ~ ${sql.lit(`^[${CJK_CLASS}]+$`)} then
            (select string_agg(substr(m.part[1], i, 2), ' ' order by i) from generate_series(1, length(m.part[1]) - 1) i)
          else m.part[1]
        end, ' ' order by m.n), '')
      from regexp_matches(body, ${sql.lit(`([${CJK_CLASS}]+|[^${CJK_CLASS}]+)`)}, 'g') with ordinality as m(part, n)
    $$`.execute(db);

  await sql`
    create table game_resource_search (
      resource_id uuid not null references game_resources (id) on delete cascade,
      company_id uuid not null,
      game_id uuid not null,
      language text not null,
      config regconfig not null,
      title text not null,
      body text not null,
      document tsvector generated always as (
        setweight(to_tsvector(config, article_cjk_bigrams(title)), 'A') || setweight(to_tsvector(config, article_cjk_bigrams(body)), 'B')
      ) stored,
      primary key (resource_id, language)
    )`.execute(db);
  await sql`create index game_resource_search_game_idx on game_resource_search (company_id, game_id)`.execute(db);
  await sql`create index game_resource_search_document_idx on game_resource_search using gin (document)`.execute(db);

  // Rewrites an article's rows from its title and body maps (a language with neither has none).
  await sql`
    create function game_resource_search_sync() returns trigger language plpgsql as $$
    begin
      delete from game_resource_search where resource_id = new.id;
      insert into game_resource_search (resource_id, company_id, game_id, language, config, title, body)
      select new.id, new.company_id, new.game_id, l.language, article_search_config(l.language),
        coalesce(new.title_localized ->> l.language, ''), coalesce(new.body ->> l.language, '')
      from (
        select jsonb_object_keys(case when jsonb_typeof(new.title_localized) = 'object' then new.title_localized else '{}'::jsonb end) as language
        union
        select jsonb_object_keys(case when jsonb_typeof(new.body) = 'object' then new.body else '{}'::jsonb end)
      ) l;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger game_resource_search_sync after insert or update of title_localized, body on game_resources
    for each row execute function game_resource_search_sync()`.execute(db);
  // Existing articles: the trigger runs for each (an update of the same value counts).
  await sql`update game_resources set body = body`.execute(db);

  await sql`
    create table game_resource_feedback (
      resource_id uuid not null references game_resources (id) on delete cascade,
      company_id uuid not null,
      session_id text not null,
      language text not null,
      helpful boolean not null,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp(),
      primary key (resource_id, session_id)
    )`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop table game_resource_feedback`.execute(db);
  await sql`drop trigger game_resource_search_sync on game_resources`.execute(db);
  await sql`drop function game_resource_search_sync()`.execute(db);
  await sql`drop table game_resource_search`.execute(db);
  await sql`drop function article_cjk_bigrams(text)`.execute(db);
  await sql`drop function article_search_tsquery(text)`.execute(db);
  await sql`drop function article_search_config(text)`.execute(db);
}
