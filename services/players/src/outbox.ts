// Writes domain events to players.outbox in the caller's transaction (D11). Unlike the shared
// writeEvents, the table and the relay's wake-up channel are named explicitly: the admin command
// runs players writes inside a transaction whose connection is on the content schema, where an
// unqualified "outbox" would be content's.
import { createEnvelope, type EventEnvelope, type NewEvent } from "@support/bus";
import { sql, type Kysely } from "@support/db";
import { PLAYERS_SCHEMA, type PlayersDatabase } from "./database.ts";

export async function writePlayerEvents(trx: Kysely<PlayersDatabase>, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const envelopes = events.map((event) => createEnvelope(event));
  const rows = envelopes.map((e) => sql`(${e.id}::uuid, ${e.type}, ${e.companyId}::uuid, ${JSON.stringify(e)}::jsonb)`);
  await sql`insert into ${sql.table(`${PLAYERS_SCHEMA}.outbox`)} (id, type, company_id, envelope) values ${sql.join(rows)}`.execute(trx);
  // Delivered on commit only; the relay listens on outbox_<schema>.
  await sql`select pg_notify(${`outbox_${PLAYERS_SCHEMA}`}, '')`.execute(trx);
  return envelopes;
}
