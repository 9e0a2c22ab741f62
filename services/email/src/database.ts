// Tables of the email schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { MailTables } from "./mails/mail.table.ts";

export type EmailDatabase = OutboxTable & MailTables;
