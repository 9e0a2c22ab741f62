// UI texts from the message catalogs: the browser's preferred language when the console has a
// catalog for it (or for its base language, "de" for "de-AT"), else English; a text missing from
// a catalog falls back to English.
import { de } from "./messages/de.ts";
import { en, type Catalog, type MessageKey } from "./messages/en.ts";

const catalogs: Record<string, Catalog> = { en, de };

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function catalogLanguage(tags: readonly string[]): string {
  for (const tag of tags) {
    const normalized = tag.toLowerCase();
    if (catalogs[normalized]) return normalized;
    const base = normalized.split(/[-_]/)[0] ?? "";
    if (catalogs[base]) return base;
  }
  return "en";
}

export function translator(language: string): Translate {
  const catalog = catalogs[language] ?? en;
  return (key, params = {}) => (catalog[key] ?? en[key]).replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export const language = catalogLanguage(navigator.languages?.length ? navigator.languages : [navigator.language ?? "en"]);
export const t = translator(language);
