// Announcements (GET, PUT and DELETE /announcements): one per scope - shared (the whole company), a game,
// or an environment override - each a pair of localization maps. Pure rules only.
import { validationError } from "@support/errors";
import { isLanguageCode, type LanguageCode } from "../common/language.ts";
import { pointerToken, type ValidationIssue } from "../common/validation.ts";

/** A localization map: optional language-code keys, string or null values. */
export type LocalizationMap = Partial<Record<LanguageCode, string | null>>;

export type AnnouncementScope = "shared" | "game" | "environment";

export interface Announcement {
  companyId: string;
  scope: AnnouncementScope;
  /** null for the shared scope; the game of a game announcement or of an environment override. */
  gameId: string | null;
  environmentId: string | null;
  shortContent: LocalizationMap;
  /** Always an object; `{}` when no details are configured. */
  longContent: LocalizationMap;
  createdAt: Date;
  updatedAt: Date;
}

export interface AnnouncementContentInput {
  shortContent: unknown;
  /** null, absent or `{}`: no details. */
  longContent?: unknown;
}

export interface AnnouncementContent {
  shortContent: LocalizationMap;
  longContent: LocalizationMap;
}

export type AnnouncementSource = AnnouncementScope | "none";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks a localization map: every key a language code, every value a string or null. */
export function checkLocalizationMap(value: unknown, path: string, issues: ValidationIssue[]): LocalizationMap {
  if (!isPlainObject(value)) {
    issues.push({ path, message: "must be an object keyed by language codes" });
    return {};
  }
  const map: LocalizationMap = {};
  for (const [key, text] of Object.entries(value)) {
    const at = `${path}/${pointerToken(key)}`;
    if (!isLanguageCode(key)) issues.push({ path: at, message: `${JSON.stringify(key)} is not a language code` });
    else if (text !== null && typeof text !== "string") issues.push({ path: at, message: "must be a string or null" });
    else map[key] = text;
  }
  return map;
}

/** longContent null, absent or `{}` all mean "no details" and are stored and returned as `{}`. */
export function normalizeLongContent(value: unknown, issues: ValidationIssue[]): LocalizationMap {
  if (value === null || value === undefined) return {};
  return checkLocalizationMap(value, "/longContent", issues);
}

export function isNonblankIn(map: LocalizationMap, language: LanguageCode): boolean {
  const text = map[language];
  return typeof text === "string" && text.trim() !== "";
}

/**
 * The content of a Put: both maps replace the stored ones whole. shortContent must be nonblank
 * in the company's primary language.
 */
export function parseAnnouncementContent(input: AnnouncementContentInput, primaryLanguage: LanguageCode): AnnouncementContent {
  const issues: ValidationIssue[] = [];
  const shortContent =
    input.shortContent === null || input.shortContent === undefined
      ? {}
      : checkLocalizationMap(input.shortContent, "/shortContent", issues);
  const longContent = normalizeLongContent(input.longContent, issues);
  const primaryMissing = !isNonblankIn(shortContent, primaryLanguage);
  const primaryMessage = `shortContent must be nonblank in the primary language ${primaryLanguage}`;
  if (primaryMissing) {
    issues.push({
      path: `/shortContent/${pointerToken(primaryLanguage)}`,
      message: `must be a nonblank string: ${primaryLanguage} is the company's primary language`,
    });
  }
  if (issues.length === 1 && primaryMissing) throw validationError(issues, primaryMessage);
  if (issues.length > 0) throw validationError(issues, "announcement content is invalid");
  return { shortContent, longContent };
}

/**
 * The announcement in force for an environment: its override, else its game's announcement,
 * else the shared one. `candidates` are the company's announcements of those three scopes.
 */
export function pickAnnouncementInForce(
  candidates: readonly Announcement[],
  target: { gameId: string; environmentId: string },
): { announcement: Announcement | null; source: AnnouncementSource } {
  const environment = candidates.find((a) => a.scope === "environment" && a.environmentId === target.environmentId);
  if (environment) return { announcement: environment, source: "environment" };
  const game = candidates.find((a) => a.scope === "game" && a.gameId === target.gameId);
  if (game) return { announcement: game, source: "game" };
  const shared = candidates.find((a) => a.scope === "shared");
  if (shared) return { announcement: shared, source: "shared" };
  return { announcement: null, source: "none" };
}

/** The data of content.announcement.updated and .cleared: which announcement changed. */
export function announcementEventData(scope: AnnouncementScope, gameId: string | null, environmentId: string | null) {
  return { scope, gameId, environmentId };
}
