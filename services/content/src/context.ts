// What the content service is built from (createServer's dependencies), the one type its route
// modules and the server share: routes import it from here, never from the server that imports them.
import type { NatsConnection } from "@support/bus";
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { Mailer } from "@support/mail";
import type { ContentConfig } from "./config.ts";
import type { ContentDatabase } from "./database.ts";

export interface ContentDeps {
  config: ContentConfig;
  logger: Logger;
  db: Kysely<ContentDatabase>;
  nc: NatsConnection;
  /** Outgoing mail (invitation and password-reset links); created from SMTP_URL when not given. */
  mailer?: Mailer;
}
