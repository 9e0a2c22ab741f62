// UI texts from the message catalogs: the session's language (or its base language, "de" for
// "de-AT"), each missing text from English. Arabic and the other right-to-left scripts flip
// the layout through the document's `dir`.
import { ar } from "./messages/ar.ts";
import { de } from "./messages/de.ts";
import { en, type Catalog, type MessageKey } from "./messages/en.ts";
import { fr } from "./messages/fr.ts";
import { ja } from "./messages/ja.ts";

const catalogs: Record<string, Catalog> = { en, de, fr, ja, ar };
const RTL = new Set(["ar", "he", "fa", "ur"]);

/** The writing direction of a language code (its primary subtag). */
export function directionOf(language: string): "ltr" | "rtl" {
  return RTL.has(language.split("-")[0]!.toLowerCase()) ? "rtl" : "ltr";
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export interface Locale {
  language: string;
  dir: "ltr" | "rtl";
  t: Translate;
}

/** The catalog language for a session language tag; English when none matches. */
export function catalogLanguage(tag: string | undefined | null): string {
  const normalized = (tag ?? "").toLowerCase();
  if (catalogs[normalized]) return normalized;
  const base = normalized.split(/[-_]/)[0] ?? "";
  return catalogs[base] ? base : "en";
}

export function createLocale(tag: string | undefined | null): Locale {
  const language = catalogLanguage(tag);
  const catalog = catalogs[language]!;
  const t: Translate = (key, params = {}) =>
    (catalog[key] ?? en[key]).replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
  return { language, dir: directionOf(language), t };
}

/** The language the browser prefers, for pages shown before any session is known. */
export function browserLanguage(): string {
  return navigator.languages?.[0] ?? navigator.language ?? "en";
}
