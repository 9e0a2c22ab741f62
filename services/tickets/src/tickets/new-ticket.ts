// A new ticket: the one shape in which every way of opening one (the company's POST /tickets, the
// player's web support page, the player's mail to a closed email ticket) reaches the use case, and the one check that makes a request into
// it. What depends on content (the game, tag and field definitions), players (blocked) or media
// (the attachments exist, belong to the game and are uploaded) is checked when it is opened.
import { isEmail, isUuid, validationError, type ValidationIssue } from "@support/errors";
import { fieldShapeIssues, isFieldValueShape } from "./field-values.ts";
import {
  isOneOf, LANGUAGES, PLATFORMS, PLAYER_TIERS, type Channel, type FieldValues, type Language, type Platform, type SupportSource,
} from "./ticket.ts";

/** The longest article title a ticket's metadata keeps (characters). */
const MAX_ARTICLE_TITLE_LENGTH = 200;

/** Who opens a new ticket: the company through the REST API, the player on the web support page, or the player's mail. */
export type NewTicketSource = Extract<SupportSource, "API" | "WEB" | "EMAIL">;

/** A new ticket, checked and with its defaults applied: what the use case opens and the repository inserts. */
export interface NewTicket {
  supportSource: NewTicketSource;
  companyId: string;
  /** A uuid, lower-case. */
  gameId: string;
  /** The web support session's game environment (lower-case; it must still be one of the game's); null: the game's first. */
  environmentId: string | null;
  /**
   * The web support session opening the ticket: it keeps seeing the ticket, and only its own
   * uploads can be attached. Null for the REST API (the company's uploads).
   */
  sessionId: string | null;
  /** The player as the players service finds or creates it: by external id, else email. */
  player: { externalId: string | null; email: string | null; name: string | null; tier: number | null };
  message: string;
  /** Attachment ids as given (media checks them and names bad ones by index). */
  attachmentIds: string[];
  language: Language;
  channels: Channel[];
  platform: Platform;
  /** As given: the game's definitions keep what they define when the ticket is opened. */
  tags: string[];
  fields: FieldValues;
  skipDuplicateCheck: boolean;
  /** The closed ticket this one follows up (the player answered it by mail); it gets this one as its followUpTicketId. */
  reopenedFromTicketId: string | null;
  /**
   * The help article the player read before asking (the web support page's "Still need help?"),
   * with its title as the player saw it; null otherwise. Kept in the ticket's metadata.
   */
  article: { key: string; title: string } | null;
}

/**
 * A NewTicket as an edge hands it in, before checkNewTicket: the same fields with the values the
 * request holds, absent where the request says nothing (checkNewTicket applies the defaults).
 */
export interface UncheckedNewTicket extends Omit<
  NewTicket,
  "environmentId" | "sessionId" | "player" | "language" | "channels" | "platform" | "fields" | "skipDuplicateCheck" | "reopenedFromTicketId" | "article"
> {
  article?: { key: string; title: string } | undefined;
  reopenedFromTicketId?: string | undefined;
  environmentId?: string | undefined;
  sessionId?: string | undefined;
  player: { [K in keyof NewTicket["player"]]?: NonNullable<NewTicket["player"][K]> | undefined };
  language?: string | undefined;
  channels?: string[] | undefined;
  platform?: string | undefined;
  fields: Record<string, unknown>;
  skipDuplicateCheck?: boolean | undefined;
}

/**
 * What each source implies, and how strictly its request is taken. The company's integration is
 * told of every value it got wrong (paths of the POST /tickets body). The player on the support
 * page cannot fix the session's metadata: what is unusable is dropped, as the game's definitions
 * drop unknown tags and fields, and only a session naming no player at all is refused.
 */
const SOURCES = {
  /** POST /tickets: an email conversation with the player the request names by email. */
  API: { channels: ["email"], platform: "not_specified", skipDuplicateCheck: false, strict: true, session: false },
  /** The web support page: a chat on the web, the player's own conversation (no duplicate check). */
  WEB: { channels: ["chat"], platform: "web", skipDuplicateCheck: true, strict: false, session: true },
  /** The player's mail answering a closed email ticket: its follow-up, with the closed ticket's player (no duplicate check). */
  EMAIL: { channels: ["email"], platform: "not_specified", skipDuplicateCheck: true, strict: false, session: false },
} as const satisfies Record<NewTicketSource, {
  /** The channels a ticket may have, and a request naming none gets. */
  channels: readonly Channel[];
  /** The platform of a request naming none. */
  platform: Platform;
  /** Of a request that does not say. */
  skipDuplicateCheck: boolean;
  /** Whether an unusable player value or field value refuses the request rather than being dropped. */
  strict: boolean;
  /** Whether the request must name its web support session. */
  session: boolean;
}>;

/** The language of a request naming none. */
const DEFAULT_LANGUAGE: Language = "en";
export const MAX_MESSAGE_LENGTH = 100_000;
/** Attachments of one message; media claims at most this many at once. */
export const MAX_ATTACHMENTS = 100;

/** A player's message and its attachment ids, wherever a player writes one (a new ticket or the player side). */
export function messageIssues(message: string, attachments: readonly string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (message.trim() === "") issues.push({ path: "/message", message: "must not be blank" });
  else if (message.length > MAX_MESSAGE_LENGTH) issues.push({ path: "/message", message: `must be at most ${MAX_MESSAGE_LENGTH} characters` });
  if (attachments.length > MAX_ATTACHMENTS) issues.push({ path: "/attachments", message: `must have at most ${MAX_ATTACHMENTS} items` });
  return issues;
}

/** Trimmed; null when absent or blank. */
function given(value: string | undefined): string | null {
  return value?.trim() || null;
}

/**
 * Checks a new ticket of either source and applies its defaults, here only. Throws one
 * VALIDATION_ERROR naming every bad value by its path in the request.
 */
export function checkNewTicket(request: UncheckedNewTicket): NewTicket {
  const source = SOURCES[request.supportSource];
  const language = request.language ?? DEFAULT_LANGUAGE;
  const channels = request.channels ?? source.channels;
  const platform = request.platform ?? source.platform;
  const { player } = request;

  const issues: ValidationIssue[] = [];
  if (!isUuid(request.gameId)) issues.push({ path: "/gameId", message: "must be a uuid" });
  issues.push(...messageIssues(request.message, request.attachmentIds));
  if (!isOneOf(LANGUAGES, language)) issues.push({ path: "/language", message: "must be a language code" });
  if (channels.length === 0) issues.push({ path: "/channels", message: "must have at least 1 item" });
  channels.forEach((channel, index) => {
    if (!isOneOf(source.channels, channel)) issues.push({ path: `/channels/${index}`, message: `must be ${source.channels.join(" or ")}` });
  });
  if (!isOneOf(PLATFORMS, platform)) issues.push({ path: "/platform", message: `must be one of ${PLATFORMS.join(", ")}` });
  if (source.strict) {
    const email = given(player.email);
    if (email === null) issues.push({ path: "/metadata/player/email", message: "is required" });
    else if (!isEmail(email)) issues.push({ path: "/metadata/player/email", message: "must be an email address" });
    if (player.externalId !== undefined && given(player.externalId) === null) issues.push({ path: "/metadata/player/id", message: "must not be blank" });
    if (player.tier !== undefined && !isOneOf(PLAYER_TIERS, player.tier)) issues.push({ path: "/metadata/player/tier", message: "must be 1, 2 or 3" });
    issues.push(...fieldShapeIssues(request.fields, "/metadata/fields"));
  } else if (given(player.externalId) === null && given(player.email) === null) {
    // The players service finds or creates the player by external id or email.
    issues.push({ path: "/player", message: "the session has no player id or email" });
  }
  if (source.session && !isUuid(request.sessionId ?? "")) issues.push({ path: "/sessionId", message: "must be a uuid" });
  if (request.reopenedFromTicketId !== undefined && !isUuid(request.reopenedFromTicketId)) issues.push({ path: "/reopenedFromTicketId", message: "must be a uuid" });
  if (issues.length > 0) throw validationError(issues);

  return {
    supportSource: request.supportSource,
    companyId: request.companyId,
    gameId: request.gameId.toLowerCase(),
    environmentId: request.environmentId?.toLowerCase() ?? null,
    sessionId: request.sessionId?.toLowerCase() ?? null,
    player: {
      externalId: given(player.externalId),
      email: given(player.email),
      name: given(player.name),
      // Past the checks a tier is valid, or (from the support page) dropped when it is not.
      tier: isOneOf(PLAYER_TIERS, player.tier) ? player.tier : null,
    },
    message: request.message,
    attachmentIds: request.attachmentIds,
    language: language as Language,
    channels: [...new Set(channels as Channel[])],
    platform: platform as Platform,
    tags: request.tags,
    // Past the checks every value has a field value's shape, or (from the support page) is dropped.
    fields: Object.fromEntries(Object.entries(request.fields).filter(([, value]) => isFieldValueShape(value))) as FieldValues,
    skipDuplicateCheck: request.skipDuplicateCheck ?? source.skipDuplicateCheck,
    reopenedFromTicketId: request.reopenedFromTicketId?.toLowerCase() ?? null,
    // Only the support page names an article; its key and title come from content through the gateway.
    article: source.session && request.article !== undefined && request.article.key !== ""
      ? { key: request.article.key.slice(0, 64), title: request.article.title.slice(0, MAX_ARTICLE_TITLE_LENGTH) }
      : null,
  };
}

/**
 * Whether the player's record already holds every name, email and tier the request gives, so
 * that resolving the player again would change nothing.
 */
export function recordHoldsContact(
  record: { name: string | null; email: string | null; tier: number | null },
  given: { name: string | null; email: string | null; tier: number | null },
): boolean {
  return (given.name === null || given.name === record.name)
    && (given.email === null || given.email === record.email)
    && (given.tier === null || given.tier === record.tier);
}
