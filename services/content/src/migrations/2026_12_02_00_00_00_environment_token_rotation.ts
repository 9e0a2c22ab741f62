// Rotating an environment's public token with an overlap: the new token works at once, the
// previous one keeps working until `previous_token_expires_at` and then names nothing. Columns
// are only added: a service of the previous release keeps working on this schema (it knows only
// the current token).
import type { Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("game_environments")
    .addColumn("previous_token", "uuid")
    .addColumn("previous_token_expires_at", "timestamptz")
    .addColumn("token_rotated_at", "timestamptz")
    .execute();
  await db.schema.createIndex("game_environments_previous_token_key").on("game_environments").column("previous_token").unique().execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("game_environments_previous_token_key").execute();
  await db.schema.alterTable("game_environments").dropColumn("token_rotated_at").dropColumn("previous_token_expires_at").dropColumn("previous_token").execute();
}
