// Queries of the inbound side: the record of each received mail, the thread lookups, the
// counts of the rate limits, and what a bounce marks. Free functions over an executor.
import { randomUUID } from "node:crypto";
import type { Kysely } from "@support/db";
import type { Transaction } from "kysely";
import type { EmailDatabase } from "../database.ts";

type Db = Kysely<EmailDatabase> | Transaction<EmailDatabase>;

export interface InboundRecord {
  companyId: string | null;
  ticketId: string | null;
  messageId: string | null;
  fromAddress: string;
  status: "accepted" | "held" | "dropped";
  reason: string | null;
  subject: string;
  textBody: string | null;
  eventId: string | null;
  receivedAt: Date;
}

/** Records a received mail; false when its Message-ID was recorded before (a mail delivered twice). */
export async function recordInbound(db: Db, record: InboundRecord): Promise<boolean> {
  const result = await db
    .insertInto("inbound_mails")
    .values({
      id: randomUUID(),
      company_id: record.companyId,
      ticket_id: record.ticketId,
      message_id: record.messageId,
      from_address: record.fromAddress,
      status: record.status,
      reason: record.reason,
      subject: record.subject.slice(0, 1000),
      text_body: record.textBody,
      event_id: record.eventId,
      received_at: record.receivedAt,
    })
    .onConflict((oc) => oc.column("message_id").where("message_id", "is not", null).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function inboundSeen(db: Db, messageId: string): Promise<boolean> {
  return (await db.selectFrom("inbound_mails").select("id").where("message_id", "=", messageId).executeTakeFirst()) !== undefined;
}

/** The ticket of a reply token. */
export async function threadOfToken(db: Db, token: string): Promise<{ companyId: string; ticketId: string } | undefined> {
  const row = await db.selectFrom("ticket_threads").select(["company_id", "ticket_id"]).where("reply_token", "=", token).executeTakeFirst();
  return row && { companyId: row.company_id, ticketId: row.ticket_id };
}

/** The ticket of the newest of our mails (or accepted answers) that these Message-IDs name. */
export async function threadOfMessageIds(db: Db, messageIds: readonly string[]): Promise<{ companyId: string; ticketId: string } | undefined> {
  if (messageIds.length === 0) return undefined;
  const sent = await db.selectFrom("mails").select(["company_id", "ticket_id"]).where("message_id", "in", messageIds).orderBy("created_at", "desc").executeTakeFirst();
  if (sent) return { companyId: sent.company_id, ticketId: sent.ticket_id };
  const received = await db
    .selectFrom("inbound_mails")
    .select(["company_id", "ticket_id"])
    .where("message_id", "in", messageIds)
    .where("status", "=", "accepted")
    .orderBy("received_at", "desc")
    .executeTakeFirst();
  return received?.company_id && received.ticket_id ? { companyId: received.company_id, ticketId: received.ticket_id } : undefined;
}

/** Mails from an address, or to a ticket, received since `since` (dropped ones too: a loop keeps counting). */
export async function countReceived(db: Db, by: { fromAddress: string } | { ticketId: string }, since: Date): Promise<number> {
  let query = db.selectFrom("inbound_mails").select((eb) => eb.fn.countAll<string>().as("n")).where("received_at", ">=", since);
  query = "fromAddress" in by ? query.where("from_address", "=", by.fromAddress) : query.where("ticket_id", "=", by.ticketId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Marks our mails a delivery status notification reported as returned (sent ones only); how many. */
export async function markReturned(db: Db, messageIds: readonly string[], reason: string): Promise<number> {
  if (messageIds.length === 0) return 0;
  const result = await db
    .updateTable("mails")
    .set({ status: "bounced", last_error: reason, next_attempt_at: null })
    .where("message_id", "in", messageIds)
    .where("status", "=", "sent")
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Forgets held and dropped mails received before `cutoff` (accepted ones stay with their ticket); how many. */
export async function deleteUnacceptedBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom("inbound_mails").where("status", "!=", "accepted").where("received_at", "<", cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface HeldMail {
  id: string;
  fromAddress: string;
  subject: string;
  text: string;
  receivedAt: Date;
}

/** A ticket's held mails, newest first. */
export async function listHeldMails(db: Db, companyId: string, ticketId: string, limit: number): Promise<HeldMail[]> {
  const rows = await db
    .selectFrom("inbound_mails")
    .select(["id", "from_address", "subject", "text_body", "received_at"])
    .where("company_id", "=", companyId)
    .where("ticket_id", "=", ticketId)
    .where("status", "=", "held")
    .orderBy("received_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, fromAddress: row.from_address, subject: row.subject, text: row.text_body ?? "", receivedAt: row.received_at }));
}
