// Who uploaded an attachment: a web support session of the player side, or (null) the
// company through its API key. A claim succeeds only for the same uploader, so an attachment
// id seen by someone else cannot be attached to their ticket. Uploads made before this column
// existed count as the company's.
import { sql, type Kysely } from "@support/db";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("attachments").addColumn("uploader_session_id", "uuid").execute();
  await sql`comment on column attachments.uploader_session_id is 'web support session that requested the upload; null for the company (API key)'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("attachments").dropColumn("uploader_session_id").execute();
}
