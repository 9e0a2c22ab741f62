// Games, their environments (each with a public token) and support resources (the targets of a
// web support session's `resource`), and the JWKS that verifies signed player metadata. Pure rules and types only.
import { isLanguageCode, type LanguageCode } from "../common/language.ts";
import { optionalBoolean, pointerToken, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";
import { checkLocalizationMap, type LocalizationMap } from "../announcements/announcement.ts";

export type Jwk = Record<string, unknown> & { kty: string };

export interface Jwks {
  keys: Jwk[];
}

export interface Game {
  id: string;
  companyId: string;
  name: string;
  slug: string;
  languages: LanguageCode[];
  blockUnverifiedPlayers: boolean;
  /** Whether routing assigns the game's tickets (default off). */
  routingEnabled: boolean;
  metadataJwks: Jwks | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface GameEnvironment {
  id: string;
  companyId: string;
  gameId: string;
  name: string;
  /** Public random token naming the environment in the public endpoints. */
  token: string;
  /** The token before the last rotation: still accepted until previousTokenExpiresAt, then never again. */
  previousToken: string | null;
  previousTokenExpiresAt: Date | null;
  tokenRotatedAt: Date | null;
  createdAt: Date;
}

export interface GameResource {
  id: string;
  gameId: string;
  key: string;
  /** The plain title: the primary language's (or the only) text. */
  title: string;
  /** The title per language; `{}` when only the plain title is known. */
  titleLocalized: LocalizationMap;
  /** The Markdown body per language; `{}` when the resource has none. */
  body: LocalizationMap;
  /** The section the web support page shows it under, per language; `{}`: none. */
  section: LocalizationMap;
  /** Orders the game's articles (then the key). */
  position: number;
  updatedAt: Date;
}

/** A resource as operators write it: title and body are a string (the primary language's) or a localization map. */
export interface NewResourceInput {
  key: string;
  title: unknown;
  body?: unknown;
  section?: unknown;
}

export type NewResource = Pick<GameResource, "key" | "title" | "titleLocalized" | "body" | "section">;

export interface NewGameInput {
  name: string;
  slug: string;
  languages: readonly string[];
  metadataJwks?: unknown;
  blockUnverifiedPlayers?: boolean | undefined;
}

export type NewGame = Pick<Game, "name" | "slug" | "languages" | "metadataJwks" | "blockUnverifiedPlayers">;

const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** Lower-case letters, digits and inner hyphens, 1..64 characters: safe in URLs and file names. */
export function isSlug(value: unknown): value is string {
  return typeof value === "string" && slugPattern.test(value);
}

export function checkLanguages(value: unknown, path: string, issues: ValidationIssue[]): LanguageCode[] {
  if (!Array.isArray(value) || value.length === 0) {
    issues.push({ path, message: "must be a non-empty array of language codes" });
    return [];
  }
  const seen = new Set<string>();
  value.forEach((language, index) => {
    if (!isLanguageCode(language)) issues.push({ path: `${path}/${index}`, message: "must be a language code" });
    else if (seen.has(language)) issues.push({ path: `${path}/${index}`, message: "is listed twice" });
    else seen.add(language);
  });
  return value.filter(isLanguageCode).filter((language, index, all) => all.indexOf(language) === index);
}

// Members that only private or symmetric keys have: a JWKS for verifying tokens holds public keys.
const secretMembers = ["d", "p", "q", "dp", "dq", "qi", "k"];

/** `{keys: [{kty, ...}]}` of public keys, or null when absent. */
export function checkJwks(value: unknown, path: string, issues: ValidationIssue[]): Jwks | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value) || !Array.isArray((value as { keys?: unknown }).keys)) {
    issues.push({ path, message: "must be an object with a keys array" });
    return null;
  }
  const keys = (value as { keys: unknown[] }).keys;
  keys.forEach((key, index) => {
    const at = `${path}/keys/${index}`;
    if (typeof key !== "object" || key === null || Array.isArray(key)) {
      issues.push({ path: at, message: "must be a JWK object" });
      return;
    }
    const jwk = key as Record<string, unknown>;
    if (typeof jwk.kty !== "string" || jwk.kty === "") issues.push({ path: `${at}/kty`, message: "must be a nonblank string" });
    for (const member of secretMembers) {
      if (member in jwk) issues.push({ path: `${at}/${pointerToken(member)}`, message: "must not be present: only public keys belong in a JWKS" });
    }
  });
  return { keys: keys as Jwk[] };
}

export function parseNewGame(input: NewGameInput): NewGame {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  if (!isSlug(input.slug)) {
    issues.push({ path: "/slug", message: "must be 1-64 lower-case letters, digits and inner hyphens" });
  }
  const languages = checkLanguages(input.languages, "/languages", issues);
  const metadataJwks = checkJwks(input.metadataJwks, "/metadataJwks", issues);
  const blockUnverifiedPlayers = optionalBoolean(input.blockUnverifiedPlayers, "/blockUnverifiedPlayers", issues);
  throwIfInvalid(issues);
  return { name, slug: input.slug, languages, metadataJwks, blockUnverifiedPlayers };
}

/** What an admin changes of a game in the settings; absent members stay as they are. */
export interface GameUpdateInput {
  name?: unknown;
  languages?: unknown;
  blockUnverifiedPlayers?: unknown;
}

export type GameUpdate = Partial<Pick<Game, "name" | "languages" | "blockUnverifiedPlayers">>;

/**
 * Checks a change of a game's name, languages or blockUnverifiedPlayers by the rules of a new
 * game. Removing a language deletes no text: announcements and resources keep their texts in it
 * (a player asking for that language still gets them, as for any language the game does not
 * list), and adding the language back brings it into the fallback order again.
 */
export function parseGameUpdate(input: GameUpdateInput): GameUpdate {
  const issues: ValidationIssue[] = [];
  const update: GameUpdate = {};
  if (input.name !== undefined) update.name = requiredText(input.name, "/name", issues);
  if (input.languages !== undefined) update.languages = checkLanguages(input.languages, "/languages", issues);
  if (input.blockUnverifiedPlayers !== undefined) {
    if (typeof input.blockUnverifiedPlayers !== "boolean") issues.push({ path: "/blockUnverifiedPlayers", message: "must be a boolean" });
    else update.blockUnverifiedPlayers = input.blockUnverifiedPlayers;
  }
  throwIfInvalid(issues);
  return update;
}

/** A game's JWKS as an admin pastes it (JSON text); blank removes it. */
export function parseJwksText(text: string | undefined): Jwks | null {
  if (text === undefined || text.trim() === "") return null;
  let value: unknown = null;
  try {
    value = JSON.parse(text);
  } catch {
    throwIfInvalid([{ path: "/metadataJwks", message: "must be JSON: a JWKS object {\"keys\": [...]}" }]);
  }
  const issues: ValidationIssue[] = [];
  const jwks = checkJwks(value, "/metadataJwks", issues);
  throwIfInvalid(issues);
  return jwks;
}

/** Longest overlap of a token rotation: 30 days. */
export const MAX_TOKEN_OVERLAP_SECONDS = 30 * 24 * 3600;
/** The overlap when none is chosen: 24 hours. */
export const DEFAULT_TOKEN_OVERLAP_SECONDS = 24 * 3600;

/** The overlap of a rotation in seconds: 0 (the previous token stops at once) to 30 days. */
export function parseTokenOverlap(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TOKEN_OVERLAP_SECONDS;
  if (!Number.isInteger(value) || value < 0 || value > MAX_TOKEN_OVERLAP_SECONDS) {
    throwIfInvalid([{ path: "/overlapSeconds", message: `must be a whole number of seconds from 0 to ${MAX_TOKEN_OVERLAP_SECONDS}` }]);
  }
  return value;
}

/** The first characters of a public token: enough to recognise it in the audit log. */
export function tokenPrefixOf(token: string | null): string | null {
  return token === null ? null : token.slice(0, 8);
}

/** A game's settings as the audit log keeps them: the JWKS by its key ids only. */
export function auditedGame(game: Game): Record<string, unknown> {
  return {
    name: game.name,
    slug: game.slug,
    languages: game.languages,
    blockUnverifiedPlayers: game.blockUnverifiedPlayers,
    metadataKeyIds: game.metadataJwks === null ? null : game.metadataJwks.keys.map((key) => (typeof key.kid === "string" ? key.kid : null)),
  };
}

/** An environment as the audit log keeps it: its tokens by their prefixes only. */
export function auditedEnvironment(environment: GameEnvironment, gameName: string): Record<string, unknown> {
  return {
    game: gameName,
    name: environment.name,
    tokenPrefix: tokenPrefixOf(environment.token),
    previousTokenPrefix: tokenPrefixOf(environment.previousToken),
    previousTokenExpiresAt: environment.previousTokenExpiresAt?.toISOString() ?? null,
  };
}

export function parseNewEnvironment(input: { name: string }): { name: string } {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues, 100);
  throwIfInvalid(issues);
  return { name };
}

const resourceKeyPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function isResourceKey(value: unknown): value is string {
  return typeof value === "string" && resourceKeyPattern.test(value);
}

const MAX_BODY_LENGTH = 100_000;

/** A string (shorthand for the primary language) or a localization map. */
function localizedInput(value: unknown, path: string, primaryLanguage: LanguageCode, issues: ValidationIssue[]): LocalizationMap {
  if (typeof value === "string") return { [primaryLanguage]: value };
  return checkLocalizationMap(value, path, issues);
}

function firstNonblank(map: LocalizationMap, preferred: LanguageCode): string | undefined {
  const text = map[preferred];
  if (typeof text === "string" && text.trim() !== "") return text;
  return Object.values(map).find((value): value is string => typeof value === "string" && value.trim() !== "");
}

/**
 * Checks a new resource. The plain title is the primary language's text of the title (else
 * the first nonblank one), so clients that know only `title` keep working.
 */
export function parseNewResource(input: NewResourceInput, primaryLanguage: LanguageCode): NewResource {
  const issues: ValidationIssue[] = [];
  if (!isResourceKey(input.key)) issues.push({ path: "/key", message: "must be 1-64 letters, digits, '_' or '-'" });
  const titleLocalized = localizedInput(input.title, "/title", primaryLanguage, issues);
  const plain = firstNonblank(titleLocalized, primaryLanguage);
  const title = plain === undefined ? requiredText(input.title, "/title", issues) : requiredText(plain, "/title", issues);
  for (const [language, text] of Object.entries(titleLocalized)) {
    if (typeof text === "string" && text.length > 200) issues.push({ path: typeof input.title === "string" ? "/title" : `/title/${language}`, message: "must be at most 200 characters" });
  }
  const body = input.body === undefined || input.body === null ? {} : localizedInput(input.body, "/body", primaryLanguage, issues);
  for (const [language, text] of Object.entries(body)) {
    if (typeof text === "string" && text.length > MAX_BODY_LENGTH) {
      issues.push({ path: typeof input.body === "string" ? "/body" : `/body/${language}`, message: `must be at most ${MAX_BODY_LENGTH} characters` });
    }
  }
  const section = input.section === undefined || input.section === null ? {} : localizedInput(input.section, "/section", primaryLanguage, issues);
  for (const [language, text] of Object.entries(section)) {
    if (typeof text === "string" && text.length > 100) issues.push({ path: typeof input.section === "string" ? "/section" : `/section/${language}`, message: "must be at most 100 characters" });
  }
  throwIfInvalid(issues);
  return { key: input.key, title, titleLocalized, body, section };
}

/** A key for an article made of its title (an admin may leave the key out), with a random suffix. */
export function resourceKeyFromTitle(title: unknown, suffix: string): string {
  const base = (typeof title === "string" ? title : "")
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .toLowerCase()
    .slice(0, 56);
  return `${base || "article"}-${suffix}`;
}

/** What an admin writes of an article: title, body and section per language; its key stays. */
export interface ResourceChangeInput {
  title: unknown;
  body?: unknown;
  section?: unknown;
}

export type ResourceChange = Pick<GameResource, "title" | "titleLocalized" | "body" | "section">;

/** Checks a changed article with the rules of a new one. */
export function parseResourceChange(input: ResourceChangeInput, primaryLanguage: LanguageCode): ResourceChange {
  const { title, titleLocalized, body, section } = parseNewResource({ key: "unchanged", ...input }, primaryLanguage);
  return { title, titleLocalized, body, section };
}

/** True when the change changes nothing of the article. */
export function sameArticle(resource: GameResource, change: ResourceChange): boolean {
  return (
    resource.title === change.title &&
    JSON.stringify(resource.titleLocalized) === JSON.stringify(change.titleLocalized) &&
    JSON.stringify(resource.body) === JSON.stringify(change.body) &&
    JSON.stringify(resource.section) === JSON.stringify(change.section)
  );
}

/** An article as the audit log records it (before/after). */
export function auditedResource(resource: GameResource): Record<string, unknown> {
  return { gameId: resource.gameId, key: resource.key, title: resource.titleLocalized, section: resource.section, body: resource.body, position: resource.position };
}

/** The data of content.game.created (the public fields of GET /games plus the verification settings). */
export function gameEventData(game: Game) {
  return {
    id: game.id,
    name: game.name,
    slug: game.slug,
    languages: game.languages,
    blockUnverifiedPlayers: game.blockUnverifiedPlayers,
    metadataJwks: game.metadataJwks,
    createdAt: game.createdAt.toISOString(),
    updatedAt: game.updatedAt.toISOString(),
  };
}

export function environmentEventData(environment: GameEnvironment) {
  return { id: environment.id, gameId: environment.gameId, name: environment.name, token: environment.token };
}

/** The data of content.environment.token_rotated. */
export function tokenRotatedEventData(environment: GameEnvironment) {
  return {
    ...environmentEventData(environment),
    previousToken: environment.previousToken!,
    previousTokenExpiresAt: environment.previousTokenExpiresAt!.toISOString(),
  };
}

export function resourceEventData(resource: GameResource) {
  return { id: resource.id, gameId: resource.gameId, key: resource.key, title: resource.title };
}

/** The data of content.resource.updated and .removed: the article as it is (was) now, its id, key and game never change. */
export function resourceChangedEventData(resource: GameResource) {
  return { ...resourceEventData(resource), position: resource.position };
}
