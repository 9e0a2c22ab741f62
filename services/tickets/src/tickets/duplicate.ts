// The duplicate rule of POST /tickets: an open ticket of the same player in the same game whose first
// message is equal after normalisation, or whose trigram similarity (pg_trgm, computed in
// the repository's query) reaches the threshold.

/** pg_trgm `similarity()` at or above this counts as the same request. */
export const DUPLICATE_SIMILARITY_THRESHOLD = 0.6;

/**
 * Trim, case-fold and collapse whitespace. Case folding is approximated by upper- then
 * lower-casing, which folds the special cases lower-casing alone misses ("Straße" and
 * "STRASSE" both become "strasse"); NFKC first makes compatibility forms (full-width
 * letters, ligatures) compare equal to their plain forms.
 */
export function normalizeMessage(message: string): string {
  return message.normalize("NFKC").toUpperCase().toLowerCase().replace(/\s+/gu, " ").trim();
}
