// Search for the support application: every message, private note and collector text answer
// carries a stored tsvector built with the text search configuration of its ticket's language,
// and the player's name, email and external id have trigram indexes for substring matches.
// Postgres cannot split Japanese, Chinese or Korean into words, so runs of those scripts are
// indexed (and searched) as overlapping pairs of characters, in every configuration.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The characters indexed by pairs: CJK ideographs (with extension A and the compatibility block),
 * hiragana, katakana (with the half-width forms) and Hangul (syllables and jamo). Punctuation of
 * those scripts is not in the class: it separates runs as spaces do.
 */
const CJK_CLASS = "\\u1100-\\u11ff\\u3040-\\u30ff\\u3130-\\u318f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff66-\\uff9f";

/** Every configuration ticket_search_config returns. */
const SEARCH_CONFIGS = [
  "simple", "english", "german", "spanish", "french", "portuguese", "italian", "dutch", "russian", "turkish", "finnish", "swedish",
  "danish", "norwegian", "hungarian", "romanian", "greek", "indonesian", "arabic",
];

export async function up(db: AnyDb): Promise<void> {
  // Equality on company_id inside the same GIN index as the tsvector and the trigrams, so
  // that every search probe is scoped to one company at the index.
  await sql`create extension if not exists btree_gin with schema public`.execute(db);

  // The configuration of a ticket language: the Snowball stemmer where Postgres has one,
  // `simple` (lower-casing only) otherwise. Immutable: the names are built into Postgres.
  await sql`
    create function ticket_search_config(language text) returns regconfig
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

  // The full-text query of a search's words for the index: the words read with every
  // configuration above, any of which may match (each event is then checked with its own
  // configuration). Immutable, so that the planner evaluates it once.
  await sql`
    create function ticket_search_tsquery(words text) returns tsquery
    language sql immutable parallel safe strict as $$
      select ${sql.raw(SEARCH_CONFIGS.map((config) => `websearch_to_tsquery('${config}', words)`).join("\n        || "))}
    $$`.execute(db);

  // Runs of CJK characters replaced by their overlapping pairs ("ログイン" -> "ログ グイ イン"); a
  // run of one character stays as it is. Everything else is kept.
  await sql`
    create function cjk_bigrams(body text) returns text
    language sql immutable parallel safe strict as $$
      select coalesce(string_agg(case
          when length(m.part[1]) > 1 and m.part[1] ~ ${sql.lit(`^[${CJK_CLASS}]+$`)} then
            (select string_agg(substr(m.part[1], i, 2), ' ' order by i) from generate_series(1, length(m.part[1]) - 1) i)
          else m.part[1]
        end, ' ' order by m.n), '')
      from regexp_matches(body, ${sql.lit(`([${CJK_CLASS}]+|[^${CJK_CLASS}]+)`)}, 'g') with ordinality as m(part, n)
    $$`.execute(db);

  // The searchable text of an event: a message's or private note's text, a collector result's
  // text answers (one per line); nothing for other types.
  await sql`
    create function ticket_event_search_text(type text, data jsonb) returns text
    language sql immutable parallel safe as $$
      select case
        when type in ('PLAYER_MESSAGE', 'AGENT_MESSAGE', 'PRIVATE_NOTE') then data->>'message'
        when type = 'COLLECTOR_RESULT' then (
          select string_agg(f->>'value', E'\n')
          from jsonb_array_elements(case when jsonb_typeof(data->'fields') = 'array' then data->'fields' else '[]'::jsonb end) f
          where f->>'type' in ('TEXT', 'EMAIL') and jsonb_typeof(f->'value') = 'string')
      end
    $$`.execute(db);

  // The configuration is a column of its own: a generated column accepts to_tsvector only with
  // a regconfig column (a cast from text is not immutable). Set from the ticket's language.
  await sql`alter table ticket_events add column search_config regconfig`.execute(db);
  await sql`
    update ticket_events e set search_config = ticket_search_config(t.language)
    from tickets t where t.id = e.ticket_id and e.type in ('PLAYER_MESSAGE', 'AGENT_MESSAGE', 'PRIVATE_NOTE', 'COLLECTOR_RESULT')`.execute(db);
  // Adding the generated column rewrites the table and computes it for the rows above: existing
  // events are searchable once the migration has run.
  await sql`
    alter table ticket_events add column search_vector tsvector
    generated always as (to_tsvector(search_config, cjk_bigrams(ticket_event_search_text(type, data)))) stored`.execute(db);
  await sql`create index ticket_events_search_idx on ticket_events using gin (company_id, search_vector) with (fastupdate = off)
    where search_vector is not null`.execute(db);

  // Substrings of the player's name, email and external id (patterns of three characters or more).
  await sql`create index tickets_player_name_trgm_idx on tickets using gin (company_id, player_name gin_trgm_ops) with (fastupdate = off)
    where player_name is not null`.execute(db);
  await sql`create index tickets_email_trgm_idx on tickets using gin (company_id, email gin_trgm_ops) with (fastupdate = off)
    where email is not null`.execute(db);
  await sql`create index tickets_player_external_id_trgm_idx on tickets using gin (company_id, player_external_id gin_trgm_ops) with (fastupdate = off)
    where player_external_id is not null`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop index tickets_player_external_id_trgm_idx`.execute(db);
  await sql`drop index tickets_email_trgm_idx`.execute(db);
  await sql`drop index tickets_player_name_trgm_idx`.execute(db);
  await sql`drop index ticket_events_search_idx`.execute(db);
  await sql`alter table ticket_events drop column search_vector`.execute(db);
  await sql`alter table ticket_events drop column search_config`.execute(db);
  await sql`drop function ticket_event_search_text(text, jsonb)`.execute(db);
  await sql`drop function ticket_search_tsquery(text)`.execute(db);
  await sql`drop function cjk_bigrams(text)`.execute(db);
  await sql`drop function ticket_search_config(text)`.execute(db);
}
