// The sender of a company's mails to players (its tenant file's company.email). Null: the
// email service's default ("<game> Support" <the address of MAIL_FROM>). Columns are only
// added: a service of the previous release keeps working on this schema.
import type { Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("companies").addColumn("email_sender_name", "text").addColumn("email_sender_address", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("companies").dropColumn("email_sender_address").dropColumn("email_sender_name").execute();
}
