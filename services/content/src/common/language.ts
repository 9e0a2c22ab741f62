// The language codes of the public API (its `language` enumeration): the keys of localization
// maps, a company's primary language and a game's languages.
export const LANGUAGE_CODES = [
  "en", "de", "es", "es-AR", "es-MX", "fi", "fil", "fr", "id", "ja", "ko", "ms", "pt", "pt-BR", "ru", "tr", "uk",
  "vi", "zh", "zh-Hans", "zh-Hant", "ar", "cs", "da", "nl", "el", "hu", "it", "no", "nb", "pl", "ro", "sk", "sv", "th",
] as const;

export type LanguageCode = (typeof LANGUAGE_CODES)[number];

const languageCodes: ReadonlySet<string> = new Set(LANGUAGE_CODES);

export function isLanguageCode(value: unknown): value is LanguageCode {
  return typeof value === "string" && languageCodes.has(value);
}
