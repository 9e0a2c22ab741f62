// Search in the support application's ticket lists: what the text of `q` asks for, and the
// snippet that shows an agent why a ticket matched. How the text is indexed and matched is the
// repository's; here are the rules of the syntax and of the snippet.
import { CJK_RUN } from "@support/search-words";

/** What a search asks for. A ticket matches when any of its parts match (see parseTicketSearch). */
export interface TicketSearch {
  /** The text as typed, trimmed. */
  text: string;
  /**
   * The full-text part in web-search syntax: every word must occur in one message, note or
   * collector answer (stemmed with the ticket's language), "quoted words" in that order, `or`
   * between words for either, `-word` for without. Empty: no full-text part.
   */
  words: string;
  /** A running number: `#42` (then only that ticket) or `42`. */
  runningId?: number;
  /** A substring of the player's name, email or external id: the text without quotes, from 3 characters. */
  substring?: string;
}

/** Substring matches need at least this many characters (trigram indexes answer nothing shorter). */
export const MIN_SUBSTRING_LENGTH = 3;

/**
 * The search syntax:
 * - `#42`: the ticket with running number 42, nothing else;
 * - `42`: that ticket, and tickets whose text or player fields contain 42;
 * - otherwise words: all must match in one message, private note or collector text answer, with
 *   the stemming of the ticket's language ("refunds" finds "refund"); "a quoted phrase" matches
 *   those words in that order; `or` and `-word` as web search engines read them. The player's
 *   name, email and external id match when they contain the whole text (quotes removed), from 3
 *   characters on.
 */
export function parseTicketSearch(text: string): TicketSearch {
  const number = /^(#?)(\d{1,15})$/.exec(text);
  if (number !== null) {
    const runningId = Number(number[2]);
    if (number[1] === "#") return { text, words: "", runningId };
    return { text, words: text, runningId, ...(text.length >= MIN_SUBSTRING_LENGTH ? { substring: text } : {}) };
  }
  const substring = text.replaceAll('"', "").trim();
  return { text, words: text, ...(substring.length >= MIN_SUBSTRING_LENGTH ? { substring } : {}) };
}

/** Where a search matched a ticket. */
export type MatchField = "message" | "note" | "collectorAnswer" | "playerName" | "email" | "playerId" | "runningId";

/** A piece of a snippet; highlighted pieces are the matched words. */
export interface SnippetPart {
  text: string;
  highlight: boolean;
}

export interface TicketMatch {
  field: MatchField;
  /** The event whose text matched (message, note, collector answer). */
  eventId: string | null;
  snippet: SnippetPart[];
}

/** The markers the repository puts around matched words in a headline; never in stored text (removed before). */
export const HIGHLIGHT_START = "\u0002";
export const HIGHLIGHT_STOP = "\u0003";

/** Splits a headline marked with HIGHLIGHT_START/STOP into parts. */
export function partsFromMarked(marked: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let highlight = false;
  let current = "";
  for (const char of marked) {
    if (char === HIGHLIGHT_START || char === HIGHLIGHT_STOP) {
      push(parts, current, highlight);
      current = "";
      highlight = char === HIGHLIGHT_START;
    } else current += char;
  }
  push(parts, current, highlight);
  return parts;
}

function push(parts: SnippetPart[], text: string, highlight: boolean): void {
  if (text === "") return;
  const last = parts.at(-1);
  if (last !== undefined && last.highlight === highlight) last.text += text;
  else parts.push({ text, highlight });
}

/** How much text a snippet shows around the first match when it is cut from a longer text. */
export const SNIPPET_CONTEXT = 60;

/**
 * A snippet of `text` with every case-insensitive occurrence of the needles highlighted, cut to
 * SNIPPET_CONTEXT characters either side of the first one ("…" where cut). Used where word
 * boundaries do not apply: substrings of the player's fields, and Japanese, Chinese or Korean
 * text (whose words Postgres cannot mark).
 */
export function snippetAround(text: string, needles: readonly string[]): SnippetPart[] {
  const lower = text.toLowerCase();
  const ranges: [number, number][] = [];
  for (const needle of needles) {
    const wanted = needle.toLowerCase();
    if (wanted === "" || wanted.length !== needle.length) continue;
    for (let at = lower.indexOf(wanted); at !== -1; at = lower.indexOf(wanted, at + wanted.length)) ranges.push([at, at + wanted.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const first = ranges[0]?.[0] ?? 0;
  const start = Math.max(0, first - SNIPPET_CONTEXT);
  const end = Math.min(text.length, (ranges[0]?.[1] ?? 0) + SNIPPET_CONTEXT * 2);
  const parts: SnippetPart[] = [];
  if (start > 0) push(parts, "…", false);
  let at = start;
  for (const [from, to] of ranges) {
    if (to <= at || from >= end) continue;
    push(parts, text.slice(at, Math.max(at, from)), false);
    push(parts, text.slice(Math.max(at, from), Math.min(to, end)), true);
    at = Math.min(to, end);
  }
  push(parts, text.slice(at, end), false);
  if (end < text.length) push(parts, "…", false);
  return parts;
}


/** The CJK runs of a search's words. */
export function cjkRuns(words: string): string[] {
  return [...words.matchAll(CJK_RUN)].map((match) => match[0]);
}

/** The terms a snippet highlights for a search's words: words and CJK runs, without quotes, `or` and `-excluded` words. */
export function searchTerms(words: string): string[] {
  return words
    .replaceAll('"', " ")
    .split(/\s+/u)
    .filter((word) => word !== "" && word.toLowerCase() !== "or" && !word.startsWith("-"))
    .flatMap((word) => word.split(new RegExp(`(${CJK_RUN.source})`, "u")))
    .filter((term) => term !== "");
}

/** The newest event a search's words matched in a ticket (the repository's answer). */
export interface EventHit {
  eventId: string;
  type: string;
  /** Headline with HIGHLIGHT_START/STOP around the matched words. */
  headline: string;
  /** The event's text, for CJK snippets. */
  text: string;
}

const EVENT_FIELDS: Record<string, MatchField> = {
  PLAYER_MESSAGE: "message",
  AGENT_MESSAGE: "message",
  PRIVATE_NOTE: "note",
  COLLECTOR_RESULT: "collectorAnswer",
};

/**
 * Why a ticket is in a search's results, shown as one snippet: its running number when the
 * search names it, else the newest matching message, note or collector answer, else the player
 * field holding the substring. Null when none applies (a ticket can only be listed by one of them).
 */
export function ticketMatch(
  search: TicketSearch,
  ticket: { runningId: number; playerName: string | null; email: string | null; playerId: string | null },
  hit: EventHit | undefined,
): TicketMatch | null {
  if (search.runningId !== undefined && search.runningId === ticket.runningId) {
    return { field: "runningId", eventId: null, snippet: [{ text: `#${ticket.runningId}`, highlight: true }] };
  }
  if (hit !== undefined) {
    // Postgres marks whole words only, and a CJK run is no word to it: with CJK in the search,
    // the words are found here as they were typed.
    const snippet = cjkRuns(search.words).length > 0 ? snippetAround(hit.text, searchTerms(search.words)) : partsFromMarked(hit.headline);
    return { field: EVENT_FIELDS[hit.type] ?? "message", eventId: hit.eventId, snippet };
  }
  if (search.substring !== undefined) {
    const wanted = search.substring.toLowerCase();
    const fields: [MatchField, string | null][] = [["playerName", ticket.playerName], ["email", ticket.email], ["playerId", ticket.playerId]];
    for (const [field, value] of fields) {
      if (value !== null && value.toLowerCase().includes(wanted)) return { field, eventId: null, snippet: snippetAround(value, [search.substring]) };
    }
  }
  return null;
}
