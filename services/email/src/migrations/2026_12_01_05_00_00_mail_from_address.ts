// The From address a mail was queued with (its company's sender address), so that a retry sends
// what was queued. Null: the address of MAIL_FROM, as for every mail queued before. Only added:
// a service of the previous release keeps working on this schema.
import type { Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("mails").addColumn("from_address", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("mails").dropColumn("from_address").execute();
}
