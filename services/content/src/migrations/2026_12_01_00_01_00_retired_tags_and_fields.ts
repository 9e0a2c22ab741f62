// Tags and custom fields can be retired: a retired one is no longer listed or given to tickets,
// and its name (a tag) or key (a field) is free for a new one in the same scope. Tickets keep
// the tags and values they have. The uniqueness of names and keys now holds among the live
// ones only. A service of the previous release keeps working on this schema (it writes no
// retired_at, so everything it writes is live).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("tags").addColumn("retired_at", "timestamptz").execute();
  await db.schema.alterTable("field_definitions").addColumn("retired_at", "timestamptz").execute();
  await db.schema.dropIndex("tags_company_id_game_id_name_key").execute();
  await db.schema
    .createIndex("tags_live_company_id_game_id_name_key")
    .on("tags")
    .columns(["company_id", "game_id", "name"])
    .unique()
    .nullsNotDistinct()
    .where(sql.ref("retired_at"), "is", null)
    .execute();
  await db.schema.dropIndex("field_definitions_company_id_game_id_key_key").execute();
  await db.schema
    .createIndex("field_definitions_live_company_id_game_id_key_key")
    .on("field_definitions")
    .columns(["company_id", "game_id", "key"])
    .unique()
    .nullsNotDistinct()
    .where(sql.ref("retired_at"), "is", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  // Retired definitions go: the old indexes allow one name (key) per scope, live or not.
  await db.deleteFrom("tags").where("retired_at", "is not", null).execute();
  await db.deleteFrom("field_definitions").where("retired_at", "is not", null).execute();
  await db.schema.dropIndex("field_definitions_live_company_id_game_id_key_key").execute();
  await db.schema.createIndex("field_definitions_company_id_game_id_key_key").on("field_definitions").columns(["company_id", "game_id", "key"]).unique().nullsNotDistinct().execute();
  await db.schema.dropIndex("tags_live_company_id_game_id_name_key").execute();
  await db.schema.createIndex("tags_company_id_game_id_name_key").on("tags").columns(["company_id", "game_id", "name"]).unique().nullsNotDistinct().execute();
  await db.schema.alterTable("field_definitions").dropColumn("retired_at").execute();
  await db.schema.alterTable("tags").dropColumn("retired_at").execute();
}
