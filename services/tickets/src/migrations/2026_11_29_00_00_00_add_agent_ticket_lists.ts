// The support application's ticket lists: when a ticket was closed (the view "closed in the
// last 7 days" reads it; kept by the update that changes the status), and the indexes of its
// lists and view counts, which are always scoped to one company and a set of its games.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`alter table tickets add column closed_at timestamptz`.execute(db);
  // Tickets closed before this column existed: the time of their END event, else their last activity.
  await sql`
    update tickets t set closed_at = coalesce(
      (select max(e.created_at) from ticket_events e where e.ticket_id = t.id and e.type = 'END'), t.last_activity_at, t.created_at)
    where t.status = 'closed'`.execute(db);
  await sql`alter table tickets add constraint tickets_closed_has_closed_at check ((status = 'closed') = (closed_at is not null))`.execute(db);
  // Sorting by last activity within a company's games: the keyset of that sort.
  await sql`create index tickets_company_game_activity_idx on tickets (company_id, game_id, (coalesce(last_activity_at, created_at)), running_id)`.execute(db);
  // The open views and their counts (mine, unassigned, all open, waiting, on hold) read only open
  // tickets, by game and assignee.
  await sql`create index tickets_open_game_assignee_idx on tickets (company_id, game_id, assignee_id, status) where status <> 'closed'`.execute(db);
  // Closed in the last 7 days.
  await sql`create index tickets_closed_game_idx on tickets (company_id, game_id, closed_at) where status = 'closed'`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`drop index tickets_closed_game_idx`.execute(db);
  await sql`drop index tickets_open_game_assignee_idx`.execute(db);
  await sql`drop index tickets_company_game_activity_idx`.execute(db);
  await sql`alter table tickets drop constraint tickets_closed_has_closed_at`.execute(db);
  await sql`alter table tickets drop column closed_at`.execute(db);
}
