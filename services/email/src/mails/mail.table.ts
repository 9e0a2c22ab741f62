import type { Generated } from "kysely";

/** A ticket's mail thread: the token of its reply address. Created with its first mail. */
export interface TicketThreadTable {
  ticket_id: string;
  company_id: string;
  reply_token: string;
  created_at: Generated<Date>;
}

export interface MailTable {
  id: string;
  company_id: string;
  ticket_id: string;
  /** The ticket event carried (an AGENT_MESSAGE); null for a survey. */
  event_id: string | null;
  /** The domain event the mail was made for: a redelivered event makes no second mail. */
  source_event_id: string;
  kind: string;
  to_address: string;
  from_name: string;
  /** The company's own sender address; null: the address of MAIL_FROM. */
  from_address: Generated<string | null>;
  reply_to: string | null;
  subject: string;
  text_body: string;
  html_body: string;
  message_id: string;
  references: string[];
  headers: Record<string, string>;
  /** queued, sent, deferred, bounced or failed. */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  /** An attempt in flight until then (another replica takes it over after: at least once). */
  locked_until: Date | null;
  last_attempt_at: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Generated<Date>;
}

export interface MailTables {
  ticket_threads: TicketThreadTable;
  mails: MailTable;
}
