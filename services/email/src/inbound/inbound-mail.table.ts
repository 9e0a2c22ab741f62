import type { Generated } from "kysely";

export interface InboundMailTable {
  id: string;
  /** Null when the mail named no ticket the service knows. */
  company_id: string | null;
  ticket_id: string | null;
  /** Its Message-ID header: a mail delivered twice is taken once. */
  message_id: string | null;
  from_address: string;
  /** accepted, held or dropped. */
  status: string;
  reason: string | null;
  subject: string;
  /** Kept only for a held mail, for the agent who decides on it (an accepted one is in the conversation). */
  text_body: string | null;
  /** The PLAYER_MESSAGE an accepted mail became. */
  event_id: string | null;
  received_at: Generated<Date>;
}

export interface InboundMailTables {
  inbound_mails: InboundMailTable;
}
