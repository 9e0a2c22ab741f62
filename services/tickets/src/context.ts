// What the use cases need, built once by createServer: the database, the reference data of
// content, what they ask of the players and media services, and the settings that shape
// answers. The other services appear as the few operations the use cases call (implemented
// over Connect in clients.ts); their failures arrive as AppErrors.
import type { Kysely } from "@support/db";
import type { Logger } from "@support/logging";
import type { TicketsDatabase } from "./database.ts";
import type { ContentReference } from "./reference/content-reference.ts";
import type { RoutingMetrics } from "./routing/routing.metrics.ts";
import type { RoutingSource } from "./routing/routing.service.ts";
import type { TriageModels } from "./triage/triage.service.ts";

/** A player as the players service knows it. */
export interface KnownPlayer {
  id: string;
  name: string | null;
  email: string | null;
  tier: number | null;
  blocked: boolean;
}

/** A player of a game as a ticket names it: by external id or, without one, by email. */
export interface PlayerContact {
  companyId: string;
  gameId: string;
  externalId: string | null;
  email: string | null;
  name: string | null;
  tier: number | null;
}

/** What ticket creation and ticket actions ask of the players service. */
export interface PlayerDirectory {
  /**
   * The player the contact names, as stored, or undefined when there is none yet. Writes
   * nothing, and refuses a contact that resolvePlayer would refuse.
   */
  findPlayer(contact: PlayerContact): Promise<KnownPlayer | undefined>;
  /**
   * The player with this external id (or, without one, email) in the game, created when new;
   * a given name, email or tier is stored.
   */
  resolvePlayer(contact: PlayerContact): Promise<KnownPlayer>;
  /** Updates the name and/or tier an agent set on a ticket. */
  setPlayerInfo(companyId: string, playerId: string, info: { name?: string; tier?: number }): Promise<void>;
}

/** What ticket creation asks of the media service. */
export interface AttachmentClaims {
  /**
   * Verifies that the attachments are completed uploads of the company and game and marks them
   * used by the ticket and its player (the first claim naming a player links it); answers the
   * claimed ids in request order.
   * INVALID_ARGUMENT names each bad id as `/attachments/<i>`. `sessionId` is the claiming
   * uploader: a web support session, or undefined for the company's API key.
   */
  claimAttachments(claim: AttachmentClaim): Promise<string[]>;
}

export interface AttachmentClaim {
  companyId: string;
  gameId: string;
  ticketId: string;
  servicePlayerId?: string | undefined;
  sessionId?: string | undefined;
  attachmentIds: string[];
}

/** A canned response of the company as a rule names it. */
export interface CannedResponseRef {
  id: string;
  name: string;
  /** null: company-wide. */
  gameId: string | null;
}

/** What a rule's sendCannedResponse action asks of content, which owns canned responses. */
export interface CannedReplies {
  /** The company's live canned responses, of every game. */
  list(companyId: string): Promise<CannedResponseRef[]>;
  /**
   * The reply to send on the ticket as the public API's ticket actions (JSON: sendMessage with
   * the text in the ticket's language, then the response's own actions); undefined when the
   * response is not a live one for the ticket's game.
   */
  render(companyId: string, cannedResponseId: string, ticket: { gameId: string; language: string; runningId: number; playerName: string | null }): Promise<unknown[] | undefined>;
}

/** What saving a rule with callWebhook actions asks of the webhooks service. */
export interface RuleTargets {
  /** Why each refused URL would not be sent to, by its index (none: every URL is fine). */
  check(companyId: string, urls: string[]): Promise<{ index: number; message: string }[]>;
}

export interface TicketsContext {
  db: Kysely<TicketsDatabase>;
  logger: Logger;
  reference: ContentReference;
  players: PlayerDirectory;
  /** Verifies and claims the attachments of new messages. */
  media: AttachmentClaims;
  /** Base of ticket urls: <supportAppUrl>/tickets/<id>. */
  supportAppUrl: string;
  /** HMAC key of list cursors. */
  cursorSecret: string;
  /** What routing asks content (a game's switch, its eligible agents, the skill tags). */
  routing: RoutingSource;
  /** Canned responses for rules' sendCannedResponse actions (content). */
  cannedReplies: CannedReplies;
  /** The check of rules' callWebhook URLs (webhooks). */
  ruleTargets: RuleTargets;
  routingMetrics: RoutingMetrics;
  /** The companies' triage models, loaded once per stored version. */
  triage: TriageModels;
  /** The clock of SLA clocks and the SLA sweep; tests move it. */
  now: () => Date;
}
