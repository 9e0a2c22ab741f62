// Collectors can be changed and retired by admins in the settings. A retired collector is no
// longer listed, shown or answered; the results players submitted stay on their tickets (each
// result carries its title and labels). Its ref is free again, and a retired collector is never
// the game's contact form: both unique indexes now hold among the live ones only. updated_at
// says when an admin last changed it. A service of the previous release keeps working on this
// schema (it writes neither column, so everything it writes is live).
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("collectors")
    .addColumn("retired_at", "timestamptz")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.updateTable("collectors").set({ updated_at: sql`created_at` }).execute();
  await db.schema.dropIndex("collectors_game_id_ref_key").execute();
  await db.schema.createIndex("collectors_live_game_id_ref_key").on("collectors").columns(["game_id", "ref"]).unique().where(sql.ref("retired_at"), "is", null).execute();
  await db.schema.dropIndex("collectors_game_id_contact_form_key").execute();
  await db.schema
    .createIndex("collectors_live_game_id_contact_form_key")
    .on("collectors")
    .column("game_id")
    .unique()
    .where(sql<boolean>`contact_form and retired_at is null`)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  // Retired collectors go: the old indexes allow one ref (and one contact form) per game, live or not.
  await db.deleteFrom("collectors").where("retired_at", "is not", null).execute();
  await db.schema.dropIndex("collectors_live_game_id_contact_form_key").execute();
  await db.schema.createIndex("collectors_game_id_contact_form_key").on("collectors").column("game_id").unique().where(sql.ref("contact_form"), "=", true).execute();
  await db.schema.dropIndex("collectors_live_game_id_ref_key").execute();
  await db.schema.createIndex("collectors_game_id_ref_key").on("collectors").columns(["game_id", "ref"]).unique().execute();
  await db.schema.alterTable("collectors").dropColumn("updated_at").dropColumn("retired_at").execute();
}
