// What the players service is built from (createServer's dependencies), the one type its route
// modules and the server share: routes import it from here, never from the server that imports them.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { PlayersConfig } from "./config.ts";
import type { PlayersDatabase } from "./database.ts";
import type { MediaClient, TicketsClient } from "./deletion/erasure-services.ts";
import type { ContentClient } from "./sessions/game-directory.ts";

export interface PlayersDeps {
  config: PlayersConfig;
  logger: Logger;
  db: Kysely<PlayersDatabase>;
  nc: NatsConnection;
  /** Content (environment tokens, JWKS, field types) for sessions; by default a client of CONTENT_URL. */
  content?: ContentClient;
  /** Tickets and media, for erasures; by default clients of TICKETS_URL and MEDIA_URL. */
  tickets?: TicketsClient;
  media?: MediaClient;
}
