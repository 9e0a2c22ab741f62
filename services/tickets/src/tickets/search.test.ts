import { describe, expect, it } from "vitest";
import { parseTicketSearch, partsFromMarked, searchTerms, snippetAround, ticketMatch } from "./search.ts";
import { websearchText } from "@support/search-words";
import { longestSecondWalk, SEARCH_WALK_BEFORE_BLOCKS, SEARCH_WALK_LONGEST, secondWalkLength } from "./ticket.repository.ts";

const text = (parts: { text: string; highlight: boolean }[]) => parts.map((part) => (part.highlight ? `[${part.text}]` : part.text)).join("");

describe("parseTicketSearch", () => {
  it("reads #42 as the running number only, 42 as the number or text, words otherwise", () => {
    expect(parseTicketSearch("#42")).toEqual({ text: "#42", words: "", runningId: 42 });
    expect(parseTicketSearch("42")).toEqual({ text: "42", words: "42", runningId: 42 });
    expect(parseTicketSearch("421")).toEqual({ text: "421", words: "421", runningId: 421, substring: "421" });
    expect(parseTicketSearch('"lost ship" refund')).toEqual({ text: '"lost ship" refund', words: '"lost ship" refund', substring: "lost ship refund" });
    expect(parseTicketSearch("ab")).toEqual({ text: "ab", words: "ab" });
  });
});

describe("snippets", () => {
  it("splits a marked headline into parts", () => {
    expect(partsFromMarked("a \u0002lost\u0003 ship \u0002x\u0003")).toEqual([
      { text: "a ", highlight: false }, { text: "lost", highlight: true }, { text: " ship ", highlight: false }, { text: "x", highlight: true },
    ]);
  });

  it("highlights every occurrence of the terms, case-insensitively, and cuts around the first", () => {
    expect(text(snippetAround("Kim.Doe@Mail.example", ["kim.doe"]))).toBe("[Kim.Doe]@Mail.example");
    const long = `${"x".repeat(100)}ログインできません${"y".repeat(200)}`;
    const cut = text(snippetAround(long, ["ログイン"]));
    expect(cut.startsWith("…")).toBe(true);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).toContain("[ログイン]できません");
  });

  it("takes the terms of a search without quotes, or and excluded words, CJK runs apart", () => {
    expect(searchTerms('"lost ログイン" or -refund abcログ')).toEqual(["lost", "ログイン", "abc", "ログ"]);
  });

  it("names the running number first, then the event, then the player's fields", () => {
    const ticket = { runningId: 42, playerName: "Kim", email: "kim@example.com", playerId: null };
    expect(ticketMatch(parseTicketSearch("#42"), ticket, undefined)?.field).toBe("runningId");
    expect(ticketMatch(parseTicketSearch("kim@"), ticket, undefined)).toMatchObject({ field: "email", snippet: [{ text: "kim@", highlight: true }, { text: "example.com", highlight: false }] });
    expect(ticketMatch(parseTicketSearch("kim"), ticket, { eventId: "e", type: "PRIVATE_NOTE", headline: "\u0002kim\u0003 said", text: "kim said" })?.field).toBe("note");
  });
});

describe("websearchText", () => {
  it("writes CJK runs as quoted pairs, unquoted inside a phrase", () => {
    expect(websearchText("ログイン lost")).toBe(' "ログ グイ イン"  lost');
    expect(websearchText('"ログイン できない"')).toBe('" ログ グイ イン   でき きな ない "');
    expect(websearchText("猫")).toBe(' "猫" ');
  });
});

describe("secondWalkLength", () => {
  it("walks as far as the first walk's density fills the page, with half as much again", () => {
    // 10 of 500 (2%): 51 matches need ~2,550 tickets, 3,825 with the spare.
    expect(secondWalkLength(10, 50)).toBe(3825);
    expect(secondWalkLength(50, 50)).toBe(765);
  });

  it("leaves rare words (nothing found, or a walk too long) and full pages alone", () => {
    expect(secondWalkLength(0, 50)).toBeUndefined();
    expect(secondWalkLength(6, 50)).toBeUndefined();
    expect(secondWalkLength(51, 50)).toBeUndefined();
    expect(secondWalkLength(7, 50)).toBeLessThanOrEqual(SEARCH_WALK_LONGEST);
  });

  it("sorted by creation, walks again only for words dense enough for a short walk (the rest is read by blocks)", () => {
    expect(longestSecondWalk("createdAt")).toBe(SEARCH_WALK_BEFORE_BLOCKS);
    expect(longestSecondWalk("lastActivityAt")).toBe(SEARCH_WALK_LONGEST);
    // 25 of 500 (5%): 1,530 tickets; 26: 1,472.
    expect(secondWalkLength(25, 50, longestSecondWalk("createdAt"))).toBeUndefined();
    expect(secondWalkLength(26, 50, longestSecondWalk("createdAt"))).toBe(1472);
    expect(secondWalkLength(10, 50, longestSecondWalk("createdAt"))).toBeUndefined();
    expect(secondWalkLength(10, 50, longestSecondWalk("lastActivityAt"))).toBe(3825);
  });
});
