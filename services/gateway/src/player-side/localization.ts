// Picks the text a player sees from a localization map (language code -> text or null): the
// session's language first, then the game's languages in their order, then any nonblank text.
// The page shows one language; falling back along the game's own list keeps the choice
// predictable (the operator orders it) instead of depending on the map's key order.

export type LocalizationMap = Record<string, unknown>;

function nonblank(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** The text for `language` with the fallback above; undefined when the map has no nonblank text. */
export function localize(map: LocalizationMap | undefined, language: string, gameLanguages: readonly string[]): string | undefined {
  return localizedText(map, language, gameLanguages)?.text;
}

/** The text as localize picks it, with the language it is in (so that a page can mark a text in another language than its own). */
export function localizedText(map: LocalizationMap | undefined, language: string, gameLanguages: readonly string[]): { text: string; language: string } | undefined {
  if (!map) return undefined;
  for (const candidate of [language, ...gameLanguages, ...Object.keys(map)]) {
    const text = map[candidate];
    if (nonblank(text)) return { text, language: candidate };
  }
  return undefined;
}

/**
 * The one language an article is shown in, so that its title and body never mix two: the
 * first of the session's language, the game's languages and then any other that has both a
 * title and a body; failing that, the first with a body, then the first with a title.
 */
export function articleLanguage(title: LocalizationMap | undefined, body: LocalizationMap | undefined, language: string, gameLanguages: readonly string[]): string | undefined {
  const candidates = [...new Set([language, ...gameLanguages, ...Object.keys(body ?? {}), ...Object.keys(title ?? {})])];
  return (
    candidates.find((candidate) => nonblank(title?.[candidate]) && nonblank(body?.[candidate])) ??
    candidates.find((candidate) => nonblank(body?.[candidate])) ??
    candidates.find((candidate) => nonblank(title?.[candidate]))
  );
}

/** The session's language, else the game's first, else "en". */
export function sessionLanguage(language: string | undefined, gameLanguages: readonly string[]): string {
  return language ?? gameLanguages[0] ?? "en";
}
