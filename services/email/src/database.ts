// Tables of the email schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { GameTables } from "./games/game.table.ts";
import type { InboundMailTables } from "./inbound/inbound-mail.table.ts";
import type { MailTables } from "./mails/mail.table.ts";
import type { RatingTables } from "./ratings/rating.table.ts";

export type EmailDatabase = OutboxTable & MailTables & InboundMailTables & RatingTables & GameTables;
