// What must hold after a fault once the stack has recovered: every committed ticket is whole
// (its player exists, its first PLAYER_MESSAGE event row is there), running ids are gapless
// 1..N per company, every ticket a client was told about is committed, and every committed
// ticket has its `tickets.ticket.created` event on NATS exactly once (and no event names a
// ticket that is not committed).
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { streamNameFor, subjectFor } from "@support/bus";
import type { CreatedTicket } from "./load.ts";
import { progress, waitUntil, type FaultStack } from "./stack.ts";

export interface ConsistencyReport {
  tickets: number;
  /** Per company: running ids missing from 1..N, or present twice. */
  runningIdGaps: { companyId: string; count: number; missing: number[]; duplicated: number[] }[];
  withoutPlayerMessage: string[];
  withoutPlayer: string[];
  /** Tickets a client got a 2xx for that are not committed (or under another running id). */
  answeredButMissing: CreatedTicket[];
  /** Committed tickets whose created event is not on NATS, or is there more than once. */
  eventCounts: { ticketId: string; events: number }[];
  /** Created events naming a ticket that is not committed. */
  eventsWithoutTicket: string[];
  /** Events still waiting in the outbox tables when the check gave up waiting. */
  outboxLeft: number;
}

/**
 * Every `tickets.ticket.created` event on the stack's TICKETS_EVENTS stream (of one company when
 * `companyId` is given): ticket id -> count.
 */
export async function createdEvents(stack: FaultStack, companyId?: string): Promise<Map<string, number>> {
  // Read again when a read fails: in a JetStream cluster with a node down, creating the reading
  // (ephemeral) consumer may time out while the cluster places it.
  for (let attempt = 1; ; attempt++) {
    try {
      return await readCreatedEvents(stack, companyId);
    } catch (error) {
      if (attempt === 5) throw error;
      progress(`reading the created events failed (${String(error)}); again`);
    }
  }
}

async function readCreatedEvents(stack: FaultStack, companyId?: string): Promise<Map<string, number>> {
  const nc = await connect({ servers: stack.natsUrl.split(","), timeout: 5000 });
  try {
    const js = jetstream(nc);
    // Every message, filtered here: the server may predate consumer subject filters.
    const consumer = await js.consumers.get(streamNameFor(stack.natsPrefix, "tickets"));
    const subject = subjectFor(stack.natsPrefix, "tickets.ticket.created");
    const counts = new Map<string, number>();
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      let got = 0;
      for await (const message of batch) {
        got++;
        if (message.subject !== subject) continue;
        const envelope = message.json<{ companyId: string; data: { id: string } }>();
        if (companyId !== undefined && envelope.companyId !== companyId) continue;
        counts.set(envelope.data.id, (counts.get(envelope.data.id) ?? 0) + 1);
      }
      if (got === 0) break;
    }
    return counts;
  } finally {
    await nc.close();
  }
}

async function outboxRows(stack: FaultStack): Promise<number> {
  const rows = await stack.query<{ n: number }>(
    "select (select count(*) from tickets.outbox)::int + (select count(*) from players.outbox)::int as n",
  );
  return rows[0]!.n;
}

/**
 * Waits (up to `timeoutMs`) until the outbox relays have published everything, then checks (the
 * tickets and events of one company when `companyId` is given: another may have erased players).
 */
export async function checkConsistency(stack: FaultStack, answered: CreatedTicket[], timeoutMs = 30_000, companyId?: string): Promise<ConsistencyReport> {
  await waitUntil("the outboxes to drain", async () => (await outboxRows(stack)) === 0, timeoutMs).catch(() => undefined);
  const outboxLeft = await outboxRows(stack);

  const tickets = await stack.query<{ id: string; company_id: string; running_id: string }>(
    "select id, company_id, running_id from tickets.tickets where $1::uuid is null or company_id = $1",
    [companyId ?? null],
  );
  const byCompany = new Map<string, number[]>();
  for (const t of tickets) byCompany.set(t.company_id, [...(byCompany.get(t.company_id) ?? []), Number(t.running_id)]);
  const runningIdGaps: ConsistencyReport["runningIdGaps"] = [];
  for (const [companyId, ids] of byCompany) {
    const seen = new Set<number>();
    const duplicated = ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
    const missing: number[] = [];
    for (let id = 1; id <= ids.length; id++) if (!seen.has(id)) missing.push(id);
    if (missing.length > 0 || duplicated.length > 0) runningIdGaps.push({ companyId, count: ids.length, missing, duplicated });
  }

  const withoutPlayerMessage = (
    await stack.query<{ id: string }>(
      `select t.id from tickets.tickets t where ($1::uuid is null or t.company_id = $1) and not exists
         (select 1 from tickets.ticket_events e where e.ticket_id = t.id and e.type = 'PLAYER_MESSAGE')`,
      [companyId ?? null],
    )
  ).map((r) => r.id);
  const withoutPlayer = (
    await stack.query<{ id: string }>(
      `select t.id from tickets.tickets t where ($1::uuid is null or t.company_id = $1) and (t.service_player_id is null
         or not exists (select 1 from players.players p where p.id = t.service_player_id))`,
      [companyId ?? null],
    )
  ).map((r) => r.id);

  const committed = new Map(tickets.map((t) => [t.id, Number(t.running_id)]));
  const answeredButMissing = answered.filter((a) => committed.get(a.ticketId) !== a.runningId);

  const events = await createdEvents(stack, companyId);
  const eventCounts = tickets.map((t) => ({ ticketId: t.id, events: events.get(t.id) ?? 0 })).filter((c) => c.events !== 1);
  const eventsWithoutTicket = [...events.keys()].filter((id) => !committed.has(id));

  return { tickets: tickets.length, runningIdGaps, withoutPlayerMessage, withoutPlayer, answeredButMissing, eventCounts, eventsWithoutTicket, outboxLeft };
}

/** The report of a consistent stack with `tickets` tickets: what a scenario expects. */
export function consistent(tickets: number): ConsistencyReport {
  return {
    tickets,
    runningIdGaps: [],
    withoutPlayerMessage: [],
    withoutPlayer: [],
    answeredButMissing: [],
    eventCounts: [],
    eventsWithoutTicket: [],
    outboxLeft: 0,
  };
}
