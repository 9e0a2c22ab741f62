// UI texts from the message catalogs. English is built into the page (the fallback for every
// text); every other catalog is a chunk of its own, loaded with import() only when the session's
// language (or, before a session, the browser's) needs it, so a player downloads one language.
// The language chosen: the exact tag, else a known alias (zh-TW is Traditional Chinese, no is
// Bokmål), else the base language (de-AT gives German), else English. Arabic and the other
// right-to-left scripts flip the layout through the document's `dir`.
import { ALIASES } from "./catalog-aliases.ts";
import { en, type Catalog, type MessageKey } from "./messages/en.ts";

/**
 * The catalogs besides English, each a separate chunk. The keys are the languages' tags as the
 * API spells them (and as `lang` carries them).
 */
const loaders: Record<string, () => Promise<Catalog>> = {
  ar: () => import("./messages/ar.ts").then((module) => module.ar),
  cs: () => import("./messages/cs.ts").then((module) => module.cs),
  da: () => import("./messages/da.ts").then((module) => module.da),
  de: () => import("./messages/de.ts").then((module) => module.de),
  el: () => import("./messages/el.ts").then((module) => module.el),
  es: () => import("./messages/es.ts").then((module) => module.es),
  fi: () => import("./messages/fi.ts").then((module) => module.fi),
  fil: () => import("./messages/fil.ts").then((module) => module.fil),
  fr: () => import("./messages/fr.ts").then((module) => module.fr),
  hu: () => import("./messages/hu.ts").then((module) => module.hu),
  id: () => import("./messages/id.ts").then((module) => module.id),
  it: () => import("./messages/it.ts").then((module) => module.it),
  ja: () => import("./messages/ja.ts").then((module) => module.ja),
  ko: () => import("./messages/ko.ts").then((module) => module.ko),
  ms: () => import("./messages/ms.ts").then((module) => module.ms),
  nb: () => import("./messages/nb.ts").then((module) => module.nb),
  nl: () => import("./messages/nl.ts").then((module) => module.nl),
  pl: () => import("./messages/pl.ts").then((module) => module.pl),
  pt: () => import("./messages/pt.ts").then((module) => module.pt),
  "pt-BR": () => import("./messages/pt-BR.ts").then((module) => module.ptBR),
  ro: () => import("./messages/ro.ts").then((module) => module.ro),
  ru: () => import("./messages/ru.ts").then((module) => module.ru),
  sk: () => import("./messages/sk.ts").then((module) => module.sk),
  sv: () => import("./messages/sv.ts").then((module) => module.sv),
  th: () => import("./messages/th.ts").then((module) => module.th),
  tr: () => import("./messages/tr.ts").then((module) => module.tr),
  uk: () => import("./messages/uk.ts").then((module) => module.uk),
  vi: () => import("./messages/vi.ts").then((module) => module.vi),
  "zh-Hans": () => import("./messages/zh-Hans.ts").then((module) => module.zhHans),
  "zh-Hant": () => import("./messages/zh-Hant.ts").then((module) => module.zhHant),
};

/** Every language the page has a catalog for, English first. */
export const CATALOG_LANGUAGES: readonly string[] = ["en", ...Object.keys(loaders)];


const RTL = new Set(["ar", "he", "fa", "ur"]);

/** The writing direction of a language code (its primary subtag). */
export function directionOf(language: string): "ltr" | "rtl" {
  return RTL.has(language.split("-")[0]!.toLowerCase()) ? "rtl" : "ltr";
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export interface Locale {
  /** The language of the catalog shown, as `lang` carries it ("zh-Hant", "pt-BR"). */
  language: string;
  dir: "ltr" | "rtl";
  t: Translate;
}

const byLowerCase = new Map(CATALOG_LANGUAGES.map((language) => [language.toLowerCase(), language]));

/** The catalog language for a language tag (any case, `-` or `_`); English when none matches. */
export function catalogLanguage(tag: string | undefined | null): string {
  const normalized = (tag ?? "").trim().toLowerCase().replace(/_/g, "-");
  const subtags = normalized.split("-");
  // A script subtag says more than a region: zh-Hant-CN is still Traditional.
  const script = subtags[0] === "zh" ? subtags.find((subtag) => subtag === "hans" || subtag === "hant") : undefined;
  const candidates = [normalized, script && `zh-${script}`, subtags.slice(0, 2).join("-"), subtags[0]];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const found = byLowerCase.get(candidate) ?? ALIASES[candidate];
    if (found) return found;
  }
  return "en";
}

/** The locale of a catalog language with its texts (English for any text the catalog lacks). */
export function createLocale(language: string, catalog: Catalog = {}): Locale {
  const t: Translate = (key, params = {}) =>
    (catalog[key] ?? en[key]).replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
  return { language, dir: directionOf(language), t };
}

const loading = new Map<string, Promise<Locale>>();

/**
 * The locale for a language tag, its catalog loaded first. A catalog that cannot be loaded (a
 * lost connection, a deploy that removed the old chunk) gives English rather than no page.
 */
export function loadLocale(tag: string | undefined | null): Promise<Locale> {
  const language = catalogLanguage(tag);
  const load = loaders[language];
  if (!load) return Promise.resolve(createLocale("en"));
  let locale = loading.get(language);
  if (!locale) {
    locale = load().then(
      (catalog) => createLocale(language, catalog),
      () => {
        // Not kept: a later page may load it once the connection is back.
        loading.delete(language);
        return createLocale("en");
      },
    );
    loading.set(language, locale);
  }
  return locale;
}

const momentFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment as the page shows it everywhere (the conversations on the home page, each message of
 * a chat): the locale's medium date and short time ("28 nov. 2026, 05:05" in French), one
 * format for one language.
 */
export function formatMoment(locale: Pick<Locale, "language">, value: string): string {
  let format = momentFormats.get(locale.language);
  if (!format) {
    format = new Intl.DateTimeFormat(locale.language, { dateStyle: "medium", timeStyle: "short" });
    momentFormats.set(locale.language, format);
  }
  return format.format(new Date(value));
}

/** The language the browser prefers, for pages shown before any session is known. */
export function browserLanguage(): string {
  return navigator.languages?.[0] ?? navigator.language ?? "en";
}
