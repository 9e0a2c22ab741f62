// What the use cases need, built once by createServer: the database, the reference data of
// content, the players and media clients, and the settings that shape answers.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { MediaClient, PlayersClient } from "./clients.ts";
import type { TicketsDatabase } from "./database.ts";
import type { ContentReference } from "./reference/content-reference.ts";

export interface TicketsContext {
  db: Kysely<TicketsDatabase>;
  logger: Logger;
  reference: ContentReference;
  players: PlayersClient;
  /** Verifies and claims the attachments of new messages (D4). */
  media: MediaClient;
  /** Base of ticket urls (D4). */
  supportAppUrl: string;
  /** HMAC key of list cursors. */
  cursorSecret: string;
}
