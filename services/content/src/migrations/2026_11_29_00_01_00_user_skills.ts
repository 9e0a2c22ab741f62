// Users' skills: the names of the company's tags marked isSkill, which routing will match
// tickets' tags against. Kept as names, not tag ids, because a name may be a tag company-wide
// and in several games at once and any of them makes it a skill. Added with a default (none),
// so a service of the previous release keeps working on this schema.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("skills", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("users").dropColumn("skills").execute();
}
