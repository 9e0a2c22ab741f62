// The settings' Players page: when a player was blocked (the blocked list, newest first, is read
// from a partial index), and erasures and schedules that a user of the company asked for
// (requested_by_type 'user'). Blocks made before this migration get their row's last change as
// their time. Times are kept to the millisecond, as the page's cursors carry them. Only a
// nullable column, a trigger and a wider check are added: a service of the previous release keeps
// working, and the trigger keeps blocked_at right for the blocks it writes during a rollout.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("players").addColumn("blocked_at", "timestamptz").execute();
  await sql`update players set blocked_at = date_trunc('milliseconds', updated_at) where blocked`.execute(db);
  await sql`create index players_blocked_at_idx on players (company_id, game_id, blocked_at desc, id desc) where blocked`.execute(db);
  // A block written without its time (by the previous release) gets it; an unblocked player has none.
  await sql`
    create function players_fill_blocked_at() returns trigger language plpgsql as $$
    begin
      if new.blocked and new.blocked_at is null then new.blocked_at := date_trunc('milliseconds', now()); end if;
      if not new.blocked then new.blocked_at := null; end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger players_fill_blocked_at before insert or update of blocked on players
    for each row execute function players_fill_blocked_at()`.execute(db);
  for (const table of ["erasures", "deletion_schedules"]) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_requested_by_type_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_requested_by_type_check`)} check (requested_by_type in ('api_key', 'operator', 'user'))`.execute(db);
  }
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ["erasures", "deletion_schedules"]) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_requested_by_type_check`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_requested_by_type_check`)} check (requested_by_type in ('api_key', 'operator'))`.execute(db);
  }
  await sql`drop trigger players_fill_blocked_at on players`.execute(db);
  await sql`drop function players_fill_blocked_at()`.execute(db);
  await sql`drop index players_blocked_at_idx`.execute(db);
  await db.schema.alterTable("players").dropColumn("blocked_at").execute();
}
