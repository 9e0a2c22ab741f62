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
}

/** A resource as operators write it: title and body are a string (the primary language's) or a localization map. */
export interface NewResourceInput {
  key: string;
  title: unknown;
  body?: unknown;
}

export type NewResource = Pick<GameResource, "key" | "title" | "titleLocalized" | "body">;

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
  throwIfInvalid(issues);
  return { key: input.key, title, titleLocalized, body };
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

export function resourceEventData(resource: GameResource) {
  return { id: resource.id, gameId: resource.gameId, key: resource.key, title: resource.title };
}
