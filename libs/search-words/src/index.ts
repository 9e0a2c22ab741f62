// A player's or an agent's search words as Postgres full-text search reads them, for every
// search index of ours (tickets' messages, help articles). Japanese, Chinese and Korean have no
// spaces between words: their indexes store each run of those characters as overlapping pairs
// ("ログイン" -> "ログ グイ イン", the migrations' cjk_bigrams functions), and the words are
// written the same way, as a phrase, so that the pairs must follow each other as in the text.

/** Runs of Japanese, Chinese or Korean characters, which the indexes store as pairs of characters. */
export const CJK_RUN = /[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+/gu;

/** A CJK run as the indexes store it: overlapping pairs of characters (a single character stays). */
export function cjkPairs(run: string): string {
  const chars = [...run];
  if (chars.length < 2) return run;
  return chars.slice(0, -1).map((char, i) => char + chars[i + 1]).join(" ");
}

const QUOTE_OR_CJK_RUN = new RegExp(`"|${CJK_RUN.source}`, "gu");

/**
 * Search words for websearch_to_tsquery, each CJK run written as its pairs and quoted so that
 * they must follow each other as in the text (inside a quoted phrase they already must).
 */
export function websearchText(words: string): string {
  let quoted = false;
  return words.replace(QUOTE_OR_CJK_RUN, (match) => {
    if (match === '"') {
      quoted = !quoted;
      return match;
    }
    return quoted ? ` ${cjkPairs(match)} ` : ` "${cjkPairs(match)}" `;
  });
}
