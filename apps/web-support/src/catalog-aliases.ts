// Language tags that name a catalog by another tag. Apart from the catalogs themselves, so that the
// page's build can write where each language's catalog is (catalogs.json, see vite.config.ts).
/**
 * Tags (lower case) whose catalog is not found by the tag or its base language alone. Spanish of
 * Latin America reads the one Spanish catalog, which is written in a neutral Spanish (tú, no
 * vosotros, no words of Spain only) for that reason.
 */
export const ALIASES: Record<string, string> = {
  zh: "zh-Hans",
  "zh-cn": "zh-Hans",
  "zh-sg": "zh-Hans",
  "zh-my": "zh-Hans",
  "zh-tw": "zh-Hant",
  "zh-hk": "zh-Hant",
  "zh-mo": "zh-Hant",
  no: "nb",
  nn: "nb",
  tl: "fil",
  in: "id",
  "pt-pt": "pt",
};
