// Queries of the email schema: threads, mails and the sender's claims. Free functions over an
// executor (the pool or a transaction); no rules here.
import { sql, type Kysely } from "@support/db";
import type { Selectable, Transaction } from "kysely";
import type { EmailDatabase } from "../database.ts";
import type { Mail, MailKind, MailStatus } from "./mail.ts";
import type { MailTable } from "./mail.table.ts";

type Db = Kysely<EmailDatabase> | Transaction<EmailDatabase>;

function toMail(row: Selectable<MailTable>): Mail {
  return {
    id: row.id,
    companyId: row.company_id,
    ticketId: row.ticket_id,
    eventId: row.event_id,
    kind: row.kind as MailKind,
    toAddress: row.to_address,
    fromName: row.from_name,
    fromAddress: row.from_address,
    replyTo: row.reply_to,
    subject: row.subject,
    textBody: row.text_body,
    htmlBody: row.html_body,
    messageId: row.message_id,
    references: row.references,
    headers: row.headers,
    status: row.status as MailStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastError: row.last_error,
    sentAt: row.sent_at,
    createdAt: row.created_at,
  };
}

/** The ticket's reply token, made with `token` when the ticket has none yet. */
export async function ensureThread(db: Db, companyId: string, ticketId: string, token: string): Promise<string> {
  await db.insertInto("ticket_threads").values({ ticket_id: ticketId, company_id: companyId, reply_token: token }).onConflict((oc) => oc.column("ticket_id").doNothing()).execute();
  const row = await db.selectFrom("ticket_threads").select("reply_token").where("ticket_id", "=", ticketId).executeTakeFirstOrThrow();
  return row.reply_token;
}

/** Whether a mail was made for this domain event already (a redelivery). */
export async function mailExistsFor(db: Db, sourceEventId: string): Promise<boolean> {
  const row = await db.selectFrom("mails").select("id").where("source_event_id", "=", sourceEventId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Message-IDs of the ticket's conversation by mail, oldest first: our mails and the player's
 * answers we accepted. The References of the next mail; its In-Reply-To is the last.
 */
export async function threadMessageIds(db: Db, companyId: string, ticketId: string): Promise<string[]> {
  const { rows } = await sql<{ message_id: string }>`
    select message_id from (
      select message_id, created_at as at from mails where company_id = ${companyId} and ticket_id = ${ticketId}
      union all
      select message_id, received_at as at from inbound_mails
      where company_id = ${companyId} and ticket_id = ${ticketId} and status = 'accepted' and message_id is not null
    ) thread
    order by at, message_id`.execute(db);
  return rows.map((row) => row.message_id);
}

/** A mail as queued: what the mail is, the domain event it was made for, and when. */
export type NewMail = Omit<Mail, "status" | "attempts" | "nextAttemptAt" | "lastAttemptAt" | "lastError" | "sentAt" | "createdAt"> & {
  sourceEventId: string;
  now: Date;
};

/** Queues a mail, due now; nothing when one exists for its domain event. Whether it was inserted. */
export async function insertMail(db: Db, mail: NewMail): Promise<boolean> {
  const result = await db
    .insertInto("mails")
    .values({
      id: mail.id,
      company_id: mail.companyId,
      ticket_id: mail.ticketId,
      event_id: mail.eventId,
      source_event_id: mail.sourceEventId,
      kind: mail.kind,
      to_address: mail.toAddress,
      from_name: mail.fromName,
      from_address: mail.fromAddress,
      reply_to: mail.replyTo,
      subject: mail.subject,
      text_body: mail.textBody,
      html_body: mail.htmlBody,
      message_id: mail.messageId,
      references: mail.references,
      headers: JSON.stringify(mail.headers) as unknown as Record<string, string>,
      status: "queued",
      next_attempt_at: mail.now,
      created_at: mail.now,
    })
    .onConflict((oc) => oc.column("source_event_id").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Mails waiting to be sent (queued or deferred): the queue's length. */
export async function countWaiting(db: Db): Promise<number> {
  const row = await db
    .selectFrom("mails")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("status", "in", ["queued", "deferred"])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listTicketMails(db: Db, companyId: string, ticketId: string): Promise<Mail[]> {
  const rows = await db
    .selectFrom("mails")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("ticket_id", "=", ticketId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(toMail);
}

/** Takes up to `limit` due mails for one attempt each, until `lockedUntil`; replicas never take the same one. */
export async function claimDue(db: Db, limit: number, now: Date, lockedUntil: Date): Promise<Mail[]> {
  if (limit <= 0) return [];
  const rows = await sql<Selectable<MailTable>>`
    update mails set locked_until = ${lockedUntil}
    where id in (
      select id from mails
      where status in ('queued', 'deferred') and next_attempt_at <= ${now}
        and (locked_until is null or locked_until <= ${now})
      order by next_attempt_at
      limit ${limit}
      for update skip locked)
    returning *`.execute(db);
  return rows.rows.map(toMail);
}

export interface AttemptRecord {
  status: MailStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date;
  lastError: string | null;
  sentAt: Date | null;
  /** The Message-ID the relay took it with (the one recorded, unless the relay set its own). */
  messageId?: string;
}

/** Records an attempt made under the claim `lockedUntil`; false when the claim was lost (another replica took the mail over). */
export async function recordAttempt(db: Db, mailId: string, lockedUntil: Date, record: AttemptRecord): Promise<boolean> {
  const result = await db
    .updateTable("mails")
    .set({
      status: record.status,
      attempts: record.attempts,
      next_attempt_at: record.nextAttemptAt,
      last_attempt_at: record.lastAttemptAt,
      last_error: record.lastError,
      sent_at: record.sentAt,
      locked_until: null,
      ...(record.messageId === undefined ? {} : { message_id: record.messageId }),
    })
    .where("id", "=", mailId)
    .where("locked_until", "=", lockedUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives a claimed mail back untried (the service is stopping): due again at once. */
export async function releaseClaim(db: Db, mailId: string, lockedUntil: Date): Promise<void> {
  await db.updateTable("mails").set({ locked_until: null }).where("id", "=", mailId).where("locked_until", "=", lockedUntil).execute();
}

/** Erases a ticket's mails, the answers received for it and its thread (its player's data was erased). */
export async function deleteTicketMail(db: Db, companyId: string, ticketId: string): Promise<number> {
  const deleted = await db.deleteFrom("mails").where("company_id", "=", companyId).where("ticket_id", "=", ticketId).executeTakeFirst();
  await db.deleteFrom("inbound_mails").where("company_id", "=", companyId).where("ticket_id", "=", ticketId).execute();
  await db.deleteFrom("ticket_threads").where("company_id", "=", companyId).where("ticket_id", "=", ticketId).execute();
  return Number(deleted.numDeletedRows);
}
