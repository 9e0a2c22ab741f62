// The checks of POST /tickets that need nothing but the request: required values,
// enumerations, the player, and field values that are not even a field value type. What depends on
// content (the game, tag and field definitions), players (blocked) or media (the attachments
// exist, belong to the game and are uploaded) comes later.
import { isEmail, isUuid, validationError, type ValidationIssue } from "@support/errors";
import { fieldShapeIssues } from "./field-values.ts";
import {
  isOneOf, LANGUAGES, PLATFORMS, PLAYER_TIERS, type Channel, type FieldValues, type Language, type Platform,
} from "./ticket.ts";

export interface NewTicketInput {
  companyId: string;
  gameId: string;
  message: string;
  attachments: string[];
  skipDuplicateCheck: boolean;
  language: string;
  channels: string[];
  platform?: string | undefined;
  player: { id?: string | undefined; name?: string | undefined; email?: string | undefined; tier?: number | undefined };
  tags: string[];
  fields: Record<string, unknown>;
}

export interface NewTicket {
  companyId: string;
  gameId: string;
  message: string;
  /** Attachment ids as given (media checks them and names bad ones by index). */
  attachments: string[];
  skipDuplicateCheck: boolean;
  language: Language;
  channels: Channel[];
  platform: Platform;
  player: { id: string | null; name: string | null; email: string; tier: number | null };
  tags: string[];
  fields: FieldValues;
}

/** Channels of tickets created through the API (POST /tickets): email only. */
export const API_CHANNELS: readonly Channel[] = ["email"];
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

export function checkNewTicket(input: NewTicketInput): NewTicket {
  const issues: ValidationIssue[] = [];
  if (!isUuid(input.gameId)) issues.push({ path: "/gameId", message: "must be a uuid" });
  issues.push(...messageIssues(input.message, input.attachments));
  if (!isOneOf(LANGUAGES, input.language)) issues.push({ path: "/language", message: "must be a language code" });
  if (input.channels.length === 0) issues.push({ path: "/channels", message: "must have at least 1 item" });
  input.channels.forEach((channel, index) => {
    if (!API_CHANNELS.includes(channel as Channel)) issues.push({ path: `/channels/${index}`, message: "must be email" });
  });
  const platform = input.platform ?? "not_specified";
  if (!isOneOf(PLATFORMS, platform)) issues.push({ path: "/platform", message: `must be one of ${PLATFORMS.join(", ")}` });

  const { player } = input;
  if (player.email === undefined || player.email.trim() === "") issues.push({ path: "/metadata/player/email", message: "is required" });
  else if (!isEmail(player.email.trim())) issues.push({ path: "/metadata/player/email", message: "must be an email address" });
  if (player.id !== undefined && player.id.trim() === "") issues.push({ path: "/metadata/player/id", message: "must not be blank" });
  if (player.tier !== undefined && !(PLAYER_TIERS as readonly number[]).includes(player.tier)) {
    issues.push({ path: "/metadata/player/tier", message: "must be 1, 2 or 3" });
  }
  issues.push(...fieldShapeIssues(input.fields, "/metadata/fields"));
  if (issues.length > 0) throw validationError(issues);

  const name = player.name?.trim();
  return {
    companyId: input.companyId,
    gameId: input.gameId.toLowerCase(),
    message: input.message,
    attachments: input.attachments,
    skipDuplicateCheck: input.skipDuplicateCheck,
    language: input.language as Language,
    channels: [...new Set(input.channels as Channel[])],
    platform: platform as Platform,
    player: {
      id: player.id?.trim() ?? null,
      name: name ? name : null,
      email: player.email!.trim(),
      tier: player.tier ?? null,
    },
    tags: input.tags,
    fields: input.fields as FieldValues,
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
