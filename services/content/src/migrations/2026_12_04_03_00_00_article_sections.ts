// Help articles (a game's resources) get a section and a position, so that admins can group and
// order them in the settings and the web support page shows them grouped and ordered: `section`
// is a localization map like the title (`{}`: no section), `position` orders a game's articles
// (then the key). Existing articles keep the key order they were shown in. updated_at says when
// an admin last changed one. An admin's new article comes last; a tenant file's (and a service of
// the previous release's, which writes neither column) gets no section and position 0, where
// resources sort by key as they always did.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("game_resources")
    .addColumn("section", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`
    update game_resources r set position = ordered.n, updated_at = r.created_at
    from (select id, row_number() over (partition by game_id order by key) - 1 as n from game_resources) ordered
    where ordered.id = r.id`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("game_resources").dropColumn("updated_at").dropColumn("position").dropColumn("section").execute();
}
