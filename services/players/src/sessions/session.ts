// Public web support sessions (GET /support/sessions/redirect, POST /support/sessions): the metadata a game gives about a
// player, how signed and unsigned metadata merge, how verified a session is, and its code.
// Rules only: no SQL, no RPC, no HTTP.
import { createHash, randomBytes } from "node:crypto";
import { isEmail, validationError, type ValidationIssue } from "@support/errors";
import { MAX_EMAIL_LENGTH, MAX_EXTERNAL_ID_LENGTH, MAX_NAME_LENGTH, isTier, normalizeEmail, type Tier } from "../players/player.ts";

export type FieldValue = string | number | boolean | string[];
export type FieldValues = Record<string, FieldValue>;

export interface SessionPlayer {
  id?: string;
  name?: string;
  email?: string;
  tier?: Tier;
}

/** `undefined` members were not given (which matters for precedence: see mergeMetadata). */
export interface SessionMetadata {
  player?: SessionPlayer;
  tags?: string[];
  fields?: FieldValues;
}

/** How far the session's player is vouched for by the game (signed metadata). */
export type Verification = "verified" | "unverified" | "anonymous";

export interface SupportSession {
  id: string;
  companyId: string;
  gameId: string;
  environmentId: string;
  language: string | null;
  resource: string | null;
  metadata: SessionMetadata;
  verification: Verification;
  /** When the player proved the session's email with a code; null until then. */
  emailVerifiedAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
}

export const MAX_TAGS = 100;
export const MAX_TAG_LENGTH = 255;
export const MAX_FIELDS = 100;
export const MAX_FIELD_KEY_LENGTH = 255;
export const MAX_FIELD_TEXT_LENGTH = 10_000;
/** Bytes of randomness of a session code: 256 bits, 43 base64url characters. */
export const SESSION_CODE_BYTES = 32;

// The language codes of the public API (the `language` enumeration of the OpenAPI document).
export const LANGUAGE_CODES: ReadonlySet<string> = new Set([
  "en", "de", "es", "es-AR", "es-MX", "fi", "fil", "fr", "id", "ja", "ko", "ms", "pt", "pt-BR", "ru", "tr", "uk", "vi", "zh",
  "zh-Hans", "zh-Hant", "ar", "cs", "da", "nl", "el", "hu", "it", "no", "nb", "pl", "ro", "sk", "sv", "th",
]);

export function isLanguageCode(value: unknown): value is string {
  return typeof value === "string" && LANGUAGE_CODES.has(value);
}

/** One JSON pointer token (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A problem in metadata, at a pointer relative to the metadata object (`/player/email`). */
type Report = (path: string, message: string) => void;

function text(value: unknown, path: string, max: number, report: Report): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    report(path, "must be a string");
    return undefined;
  }
  const trimmed = value.trim();
  // A blank value is "not given": game clients fill templates with empty variables.
  if (trimmed === "") return undefined;
  if (trimmed.length > max) {
    report(path, `must be at most ${max} characters`);
    return undefined;
  }
  return trimmed;
}

function parsePlayer(value: unknown, report: Report): SessionPlayer | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    report("/player", "must be an object");
    return undefined;
  }
  const raw = value as Record<string, unknown>;
  const player: SessionPlayer = {};
  const id = text(raw.id, "/player/id", MAX_EXTERNAL_ID_LENGTH, report);
  if (id !== undefined) player.id = id;
  const name = text(raw.name, "/player/name", MAX_NAME_LENGTH, report);
  if (name !== undefined) player.name = name;
  const email = text(raw.email, "/player/email", MAX_EMAIL_LENGTH, report);
  if (email !== undefined) {
    if (isEmail(email)) player.email = email;
    else report("/player/email", "must be an email address");
  }
  if (raw.tier !== undefined && raw.tier !== null) {
    if (isTier(raw.tier)) player.tier = raw.tier;
    else report("/player/tier", "must be 1, 2 or 3");
  }
  return player;
}

function parseTags(value: unknown, report: Report): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    report("/tags", "must be an array of strings");
    return undefined;
  }
  const tags: string[] = [];
  value.forEach((item, index) => {
    const tag = text(item, `/tags/${index}`, MAX_TAG_LENGTH, report);
    if (tag !== undefined && !tags.includes(tag)) tags.push(tag);
  });
  if (tags.length > MAX_TAGS) report("/tags", `must have at most ${MAX_TAGS} tags`);
  return tags;
}

function parseFieldValue(value: unknown, path: string, report: Report): FieldValue | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
  } else if (typeof value === "string") {
    if (value.length <= MAX_FIELD_TEXT_LENGTH) return value;
    report(path, `must be at most ${MAX_FIELD_TEXT_LENGTH} characters`);
    return undefined;
  } else if (Array.isArray(value) && value.every((item) => typeof item === "string" && item.length <= MAX_FIELD_TEXT_LENGTH)) {
    return [...(value as string[])];
  }
  report(path, "must be a string, a number, a boolean or an array of strings");
  return undefined;
}

function parseFields(value: unknown, report: Report): FieldValues | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    report("/fields", "must be an object");
    return undefined;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_FIELDS) report("/fields", `must have at most ${MAX_FIELDS} fields`);
  const fields: FieldValues = {};
  for (const [key, raw] of entries) {
    const path = `/fields/${pointerToken(key)}`;
    if (key === "" || key.length > MAX_FIELD_KEY_LENGTH) {
      report(path, `key must be 1 to ${MAX_FIELD_KEY_LENGTH} characters`);
      continue;
    }
    const parsed = parseFieldValue(raw, path, report);
    if (parsed !== undefined) fields[key] = parsed;
  }
  return fields;
}

/**
 * Reads metadata (`{player, tags, fields}`) of unknown shape. Problems are reported with
 * pointers relative to the metadata object; members that are absent stay absent.
 */
export function parseMetadata(value: unknown, report: Report): SessionMetadata {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    report("", "must be an object");
    return {};
  }
  const raw = value as Record<string, unknown>;
  const metadata: SessionMetadata = {};
  const player = parsePlayer(raw.player, report);
  if (player !== undefined) metadata.player = player;
  const tags = parseTags(raw.tags, report);
  if (tags !== undefined) metadata.tags = tags;
  const fields = parseFields(raw.fields, report);
  if (fields !== undefined) metadata.fields = fields;
  return metadata;
}

/** The unsigned metadata of a request; problems are 400s at `/player/email`, `/tags/0`, ... */
export function parseUnsignedMetadata(value: unknown): SessionMetadata {
  const issues: ValidationIssue[] = [];
  const metadata = parseMetadata(value, (path, message) => issues.push({ path: path || "/", message }));
  if (issues.length > 0) throw validationError(issues);
  return metadata;
}

/** The `metadata` claim of a verified token; problems are 400s at `/signedMetadataToken`. */
export function parseSignedMetadataClaim(value: unknown): SessionMetadata {
  const issues: ValidationIssue[] = [];
  const metadata = parseMetadata(value, (path, message) =>
    issues.push({ path: "/signedMetadataToken", message: `claim metadata${path.replaceAll("/", ".")} ${message}` }),
  );
  if (issues.length > 0) throw validationError(issues);
  return metadata;
}

export type FieldType = "text" | "number" | "date" | "boolean" | "dropdown";

const numberLike = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether query text reads as a decimal number (`42`, `-1.5`, `2e3`; not `0x10`, `Infinity`, ``). */
export function looksLikeNumber(value: string): boolean {
  return numberLike.test(value.trim()) && Number.isFinite(Number(value.trim()));
}

/**
 * The redirect's query parameters are text. A number-looking value of a number field becomes a number,
 * `true`/`false` of a boolean field a boolean; everything else stays as it came (text, or a
 * list of texts for a repeated parameter). `types` are the field types of the game by key.
 */
export function typeQueryFields(fields: FieldValues, types: ReadonlyMap<string, FieldType>): FieldValues {
  const typed: FieldValues = {};
  for (const [key, value] of Object.entries(fields)) {
    const type = types.get(key);
    if (type === "number" && typeof value === "string" && looksLikeNumber(value)) typed[key] = Number(value.trim());
    else if (type === "boolean" && (value === "true" || value === "false")) typed[key] = value === "true";
    else typed[key] = value;
  }
  return typed;
}

/**
 * Precedence: signed values win field by field. `tags` is one value (signed tags replace
 * the unsigned ones), `fields` merge key by key (a signed key wins), and the `player` object
 * is atomic: a signed player replaces the unsigned player entirely, never mixed with it.
 */
export function mergeMetadata(unsigned: SessionMetadata, signed: SessionMetadata | undefined): SessionMetadata {
  const merged: SessionMetadata = {};
  const player = signed?.player ?? unsigned.player;
  if (player !== undefined) merged.player = { ...player };
  const tags = signed?.tags ?? unsigned.tags;
  if (tags !== undefined) merged.tags = [...tags];
  if (unsigned.fields !== undefined || signed?.fields !== undefined) merged.fields = { ...unsigned.fields, ...signed?.fields };
  return merged;
}

/**
 * Signed metadata makes a session "verified"; a player id without it is "unverified";
 * no player id is "anonymous". Verification is about who the player is, so when the signed
 * metadata names no player, an unsigned player (kept by the precedence rule) is not vouched
 * for: the session is then judged by that player as if nothing were signed.
 */
export function verificationOf(signed: SessionMetadata | undefined, merged: SessionMetadata): Verification {
  if (signed !== undefined && (signed.player !== undefined || merged.player === undefined)) return "verified";
  return merged.player?.id !== undefined ? "unverified" : "anonymous";
}

/**
 * A game with `blockUnverifiedPlayers` refuses every unverified identity: a player with an id
 * or an email that the game did not sign. A session naming no one (anonymous) is still
 * accepted: it sees only the tickets it opens itself.
 */
export function checkVerificationAllowed(verification: Verification, metadata: SessionMetadata, blockUnverifiedPlayers: boolean): void {
  const namesSomeone = metadata.player?.id !== undefined || metadata.player?.email !== undefined;
  if (blockUnverifiedPlayers && verification !== "verified" && namesSomeone) {
    throw validationError(
      [{ path: "/signedMetadataToken", message: "is required: this game accepts a player with an id or email only when signed (blockUnverifiedPlayers)" }],
      "This game accepts only verified players",
    );
  }
}

/** The language, when given, must be a language code. */
export function checkLanguage(language: string | undefined): string | null {
  if (language === undefined) return null;
  if (!isLanguageCode(language)) throw validationError([{ path: "/language", message: "must be a language code" }]);
  return language;
}

/** The resource, when given, must be a configured key of the game. */
export function checkResource(resource: string | undefined, resourceKeys: readonly string[]): string | null {
  if (resource === undefined) return null;
  if (!resourceKeys.includes(resource)) throw validationError([{ path: "/resource", message: "is not a resource of the game" }]);
  return resource;
}

/** A new session code: 256 random bits, URL-safe (base64url, no padding). */
export function createSessionCode(): string {
  return randomBytes(SESSION_CODE_BYTES).toString("base64url");
}

/** What is stored of a code: only its SHA-256, so a leaked table does not leak credentials. */
export function hashSessionCode(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

/** The columns that let a player's sessions be found (player deletion erases them). */
export function playerKeysOf(metadata: SessionMetadata): { externalId: string | null; emailNormalized: string | null } {
  return {
    externalId: metadata.player?.id ?? null,
    emailNormalized: metadata.player?.email === undefined ? null : normalizeEmail(metadata.player.email),
  };
}

export const sessionEventTypes = {
  created: "players.session.created",
  /** The session's email was proven with a code: caches of the session must be refreshed. */
  verified: "players.session.verified",
  /** Sessions ended before their expiry (the player's erasure): they must stop working at once. */
  ended: "players.session.ended",
} as const;

/** Data of players.session.verified: the session's id only. */
export function sessionVerifiedData(session: Pick<SupportSession, "id" | "gameId">, emailVerifiedAt: Date) {
  return { sessionId: session.id, gameId: session.gameId, emailVerifiedAt: emailVerifiedAt.toISOString() };
}

/** Data of players.session.ended: the ids of the sessions that stopped working, and why. */
export function sessionsEndedData(sessionIds: string[], reason: "player_erased") {
  return { sessionIds, reason };
}

/** Data of the players.session.created event: ids and settings only, no code and no personal data beyond ids. */
export function sessionCreatedData(session: SupportSession) {
  return {
    sessionId: session.id,
    gameId: session.gameId,
    environmentId: session.environmentId,
    externalPlayerId: session.metadata.player?.id ?? null,
    verification: session.verification,
    language: session.language,
    resource: session.resource,
    expiresAt: session.expiresAt.toISOString(),
  };
}
