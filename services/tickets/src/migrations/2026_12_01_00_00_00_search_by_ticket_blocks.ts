// Search by blocks of tickets: every event keeps its ticket's running id, and the event search
// index holds the block of 4,096 running ids the ticket is in (running id / 4096). Within a
// company the running id orders tickets exactly as their creation time does, so a search sorted
// by creation reads the newest blocks first and stops when they hold a page, instead of reading
// every matching event of the company.
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  // Nullable: while a rollout runs, the previous release writes events without it.
  await sql`alter table ticket_events add column ticket_running_id bigint`.execute(db);
  // Events written before this column existed: their ticket's running id.
  await sql`update ticket_events e set ticket_running_id = t.running_id from tickets t where t.id = e.ticket_id`.execute(db);
  // Events written without it (by the previous release) get it from their ticket: on insert when
  // the ticket exists already, and, for the first events of a ticket written by the statement
  // that creates it (which the insert cannot see yet), when that statement ends.
  await sql`
    create function ticket_events_fill_running_id() returns trigger language plpgsql as $$
    begin
      new.ticket_running_id := (select running_id from tickets where id = new.ticket_id);
      return new;
    end $$`.execute(db);
  await sql`create trigger ticket_events_fill_running_id before insert on ticket_events
    for each row when (new.ticket_running_id is null) execute function ticket_events_fill_running_id()`.execute(db);
  // The events still without it, by ticket: empty but for those moments, so that the check on
  // every new ticket is one probe of an empty index.
  await sql`create index ticket_events_running_id_missing_idx on ticket_events (ticket_id) where ticket_running_id is null`.execute(db);
  await sql`
    create function tickets_fill_events_running_id() returns trigger language plpgsql as $$
    begin
      update ticket_events set ticket_running_id = new.running_id where ticket_id = new.id and ticket_running_id is null;
      return null;
    end $$`.execute(db);
  await sql`create trigger tickets_fill_events_running_id after insert on tickets
    for each row execute function tickets_fill_events_running_id()`.execute(db);
  // The block (4,096 running ids, the tickets repository's SEARCH_BLOCK) is a key of the same GIN
  // index as the company and the words, so that Postgres intersects the three lists inside the
  // index and reads only the matching events of the blocks asked for. It is indexed as an array
  // of one block, searched with `&&` (overlap) and the blocks asked for: an operator Postgres
  // always applies in the index, where `= any(blocks)` is one index scan per block and is left
  // to a filter on the rows when the planner underestimates the words (a CJK phrase in every
  // configuration), which reads every match. A search without blocks (sorted by last activity,
  // or past the blocks) reads the company and the words as before.
  await sql`create index ticket_events_search_block_idx on ticket_events
    using gin (company_id, search_vector, (array[ticket_running_id / 4096])) with (fastupdate = off)
    where search_vector is not null`.execute(db);
  await sql`drop index ticket_events_search_idx`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await sql`create index ticket_events_search_idx on ticket_events using gin (company_id, search_vector) with (fastupdate = off)
    where search_vector is not null`.execute(db);
  await sql`drop index ticket_events_search_block_idx`.execute(db);
  await sql`drop trigger tickets_fill_events_running_id on tickets`.execute(db);
  await sql`drop function tickets_fill_events_running_id()`.execute(db);
  await sql`drop index ticket_events_running_id_missing_idx`.execute(db);
  await sql`drop trigger ticket_events_fill_running_id on ticket_events`.execute(db);
  await sql`drop function ticket_events_fill_running_id()`.execute(db);
  await sql`alter table ticket_events drop column ticket_running_id`.execute(db);
}
