// The help center's rules on a game's articles: what a player's search may be, how its words
// reach the full-text index (Japanese, Chinese and Korean runs as the pairs of characters the
// index holds, as in the tickets service's search), the plain-text excerpt a result shows, and
// the "was this helpful?" counts the settings show. Pure rules and types only.
import { CJK_RUN } from "@support/search-words";
import { throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

/** The longest search a player may send (characters, after trimming). */
export const MAX_SEARCH_LENGTH = 200;
/** How many results a search answers at most. */
export const MAX_SEARCH_RESULTS = 20;
/** How many related articles an article shows at most. */
export const MAX_RELATED_ARTICLES = 3;
/** About how many characters a result's excerpt has. */
export const EXCERPT_LENGTH = 160;

/** An article as the page shows it: its key and the one language it is shown in. */
export interface ShownArticle {
  key: string;
  language: string;
}

/** A search's result, best first. */
export interface ArticleSearchHit {
  key: string;
  language: string;
  /** Plain text around the first matched word (the body's start when none is found as typed). */
  excerpt: string;
}

/** The votes on an article in one language. */
export interface ArticleFeedbackCount {
  language: string;
  helpful: number;
  notHelpful: number;
}

/** A player's search words, trimmed; an issue at /q when blank or too long. */
export function parseSearchWords(value: unknown): string {
  const issues: ValidationIssue[] = [];
  const words = typeof value === "string" ? value.trim() : "";
  if (words === "") issues.push({ path: "/q", message: "must be a nonblank string" });
  else if ([...words].length > MAX_SEARCH_LENGTH) issues.push({ path: "/q", message: `must be at most ${MAX_SEARCH_LENGTH} characters` });
  throwIfInvalid(issues, "the search is invalid");
  return words;
}

/** The words an excerpt looks for: the search's words and CJK runs, without quotes, `or` and `-excluded` words. */
export function searchTerms(words: string): string[] {
  return words
    .replaceAll('"', " ")
    .split(/\s+/u)
    .filter((word) => word !== "" && word.toLowerCase() !== "or" && !word.startsWith("-"))
    .flatMap((word) => word.split(new RegExp(`(${CJK_RUN.source})`, "u")))
    .filter((term) => term.trim() !== "");
}

/** Markdown as the text a reader sees: no markup, links and images as their text, one line. */
export function markdownToPlainText(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n?/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, "")
    .replace(/(\*\*|__|~~|`)/g, "")
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_]/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * About EXCERPT_LENGTH characters of the plain text around the first of the terms it holds
 * (case-insensitive; a stemmed match not found as typed starts at the text's beginning), with
 * an ellipsis where text was cut.
 */
export function excerptAround(text: string, terms: readonly string[], length = EXCERPT_LENGTH): string {
  const lower = text.toLowerCase();
  const found = terms.map((term) => lower.indexOf(term.toLowerCase())).filter((at) => at >= 0);
  const first = found.length > 0 ? Math.min(...found) : 0;
  let start = Math.max(0, first - Math.floor(length / 4));
  // Start at a word's beginning when one is near (scripts without spaces start where they are).
  if (start > 0) {
    const space = text.lastIndexOf(" ", start);
    if (space >= 0 && start - space < 20) start = space + 1;
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start + length / 2) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}
