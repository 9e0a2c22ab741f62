// What the email service's use cases work with: its database, the tickets and games it reads
// through other services, its settings. server.ts builds it; routes, consumers and jobs take it.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { EmailDatabase } from "./database.ts";

/** A ticket as the email channel reads it. */
export interface TicketForMail {
  id: string;
  runningId: number;
  gameId: string;
  channels: string[];
  email: string | undefined;
  language: string;
  status: string;
  resolutionType: string | undefined;
  csatScore: number | undefined;
}

/** A message of the conversation the player may read (never a private note). */
export interface ConversationMessage {
  id: string;
  fromPlayer: boolean;
  message: string;
  createdAt: Date;
}

/** The tickets the mails are about: the tickets service in production. */
export interface TicketReader {
  /** The ticket; undefined when it is gone (erased) or not the company's. */
  ticket(companyId: string, ticketId: string): Promise<TicketForMail | undefined>;
  /** Player and agent messages, oldest first. */
  conversation(companyId: string, ticketId: string): Promise<ConversationMessage[]>;
  /**
   * Adds the player's answer by mail (tickets.AddEmailReply): to the ticket, to where its
   * follow-ups lead, or to a new follow-up of a closed ticket. Throws the domain error of a
   * blocked player (failed_precondition PLAYER_BLOCKED) or an unknown ticket (not_found).
   */
  addReply(companyId: string, ticketId: string, message: string, attachments: string[]): Promise<{ ticketId: string; eventId: string; followUp: boolean }>;
  /**
   * Opens an email ticket from a player's mail to a game's support address (tickets.CreateEmailTicket);
   * throws failed_precondition PLAYER_BLOCKED, or DUPLICATE_OPEN_TICKET_DETECTED with the similar open ticket's id.
   */
  openTicket(input: { companyId: string; gameId: string; email: string; name: string | null; message: string; language: string; attachments: string[] }): Promise<{ ticketId: string; eventId: string }>;
  /** Records the player's rating from the survey link (tickets.RateTicket); conflict when the ticket cannot be rated (rated already). */
  rate(companyId: string, ticketId: string, score: number, review: string | null): Promise<void>;
}

/** Where a mail's files are kept: media in production, as the company's uploads for the game. */
export interface FileStore {
  /** The attachment id; throws invalid_argument for a file of a type or size the platform does not take. */
  store(companyId: string, gameId: string, file: { fileName: string; contentType: string; content: Uint8Array }): Promise<string>;
}

/** A company's own sender of its mails to players; null parts: the defaults ("<game> Support", MAIL_FROM's address). */
export interface CompanySender {
  name: string | null;
  address: string | null;
}

/** Companies' senders: content in production. */
export interface CompanySenders {
  senderOf(companyId: string): Promise<CompanySender>;
}

/** Games' names: content in production. */
export interface GameNames {
  nameOf(companyId: string, gameId: string): Promise<string>;
}

export interface EmailSettings {
  /** The address of MAIL_FROM (Message-IDs are in its domain). */
  fromAddress: string;
  /** EMAIL_REPLY_ADDRESS; empty: players answer MAIL_FROM. */
  replyAddress: string;
  quotedMessages: number;
  queueMax: number;
  /** The web support page's address (WEB_SUPPORT_URL): the survey's links open its rating page. */
  webSupportUrl: string;
  /** Mails taken from one address, and for one ticket, per hour; past them mail is dropped (loops). */
  inboundPerSenderPerHour: number;
  inboundPerTicketPerHour: number;
}

export interface EmailContext {
  db: Kysely<EmailDatabase>;
  tickets: TicketReader;
  files: FileStore;
  games: GameNames;
  senders: CompanySenders;
  settings: EmailSettings;
  logger: Logger;
  /** Tells the sender new mails are due. */
  wake(): void;
}
