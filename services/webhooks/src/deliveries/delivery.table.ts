import type { Generated } from "kysely";

export interface DeliveryTable {
  /** Also the `webhook-id` header, the same at every attempt. */
  id: string;
  webhook_id: string;
  company_id: string;
  /** Insertion order: the order of deliveries that share an ordering key. */
  seq: Generated<string>;
  /** The domain event it came from; null for webhook.test and webhook.disabled. */
  event_id: string | null;
  event_type: string;
  /** Deliveries of one webhook with the same key are sent one after the other (a ticket, a player). */
  ordering_key: string;
  /** The ticket or player the payload is about, for the erasure of a player's data. */
  ticket_id: string | null;
  player_id: string | null;
  payload: string;
  /** Where this delivery goes when not to its webhook's URL: a rule's callWebhook action. */
  url: string | null;
  /** "pending", "succeeded" or "failed". */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  /** An attempt in flight until then (another replica takes it over after, at least once). */
  locked_until: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  created_at: Generated<Date>;
}

/** Tickets of a player as the tickets events told them, for erasure (ticket events name no player). */
export interface TicketPlayerTable {
  ticket_id: string;
  company_id: string;
  player_id: string;
}

export interface DeliveryTables {
  deliveries: DeliveryTable;
  ticket_players: TicketPlayerTable;
}
