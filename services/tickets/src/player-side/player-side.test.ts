import { describe, expect, it } from "vitest";
import { checkCsat, ownsTicket, previewOf, PREVIEW_LENGTH, toOwner } from "./player-side.ts";

const COMPANY = "0b6f5a3e-6d0c-4a57-9a53-2f0a8f7a1c11";
const GAME = "6d1f8a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
const ticket = { companyId: COMPANY, gameId: GAME, playerId: "p-1" as string | null, email: "Ada@Example.com" as string | null };

describe("ownsTicket", () => {
  it("matches by external player id within the company and game", () => {
    expect(ownsTicket(toOwner({ companyId: COMPANY, gameId: GAME.toUpperCase(), playerId: "p-1" }), ticket)).toBe(true);
    expect(ownsTicket(toOwner({ companyId: COMPANY, gameId: GAME, playerId: "p-2" }), ticket)).toBe(false);
    expect(ownsTicket(toOwner({ companyId: COMPANY, gameId: "11111111-1111-4111-8111-111111111111", playerId: "p-1" }), ticket)).toBe(false);
    expect(ownsTicket(toOwner({ companyId: "22222222-2222-4222-8222-222222222222", gameId: GAME, playerId: "p-1" }), ticket)).toBe(false);
  });

  it("with a verified email only, matches every ticket of that email (the mailbox's owner)", () => {
    const byEmail = toOwner({ companyId: COMPANY, gameId: GAME, email: " ADA@example.com " });
    expect(ownsTicket(byEmail, ticket)).toBe(true);
    expect(ownsTicket(byEmail, { ...ticket, playerId: null })).toBe(true);
    expect(ownsTicket(byEmail, { ...ticket, email: "other@example.com" })).toBe(false);
    expect(ownsTicket(byEmail, { ...ticket, email: null })).toBe(false);
    expect(ownsTicket(toOwner({ companyId: COMPANY, gameId: GAME }), { ...ticket, playerId: null })).toBe(false);
  });

  it("with a verified id and email, matches the id's tickets and the email's tickets without an id, not another id's", () => {
    const both = toOwner({ companyId: COMPANY, gameId: GAME, playerId: "p-2", email: "ada@example.com" });
    expect(ownsTicket(both, { ...ticket, playerId: "p-2", email: null })).toBe(true);
    expect(ownsTicket(both, { ...ticket, playerId: null })).toBe(true);
    expect(ownsTicket(both, ticket)).toBe(false);
  });
});

describe("checkCsat", () => {
  const resolved = { status: "closed" as const, resolutionType: "resolved" as const, csatScore: null };

  it("accepts a first rating of a resolved ticket", () => {
    expect(() => checkCsat(resolved, 5, null)).not.toThrow();
  });

  it("refuses a score outside 1..5 (400) before the state (409)", () => {
    expect(() => checkCsat({ ...resolved, status: "new", resolutionType: null }, 0, null)).toThrow(expect.objectContaining({ code: "invalid_argument" }));
    expect(() => checkCsat(resolved, 2.5, null)).toThrow(expect.objectContaining({ code: "invalid_argument" }));
  });

  it("refuses open, rejected, auto-closed and already rated tickets (409)", () => {
    for (const state of [
      { status: "waiting" as const, resolutionType: null, csatScore: null },
      { status: "closed" as const, resolutionType: "rejected" as const, csatScore: null },
      { status: "closed" as const, resolutionType: "auto_closed" as const, csatScore: null },
      { ...resolved, csatScore: 3 },
    ]) {
      expect(() => checkCsat(state, 4, null)).toThrow(expect.objectContaining({ code: "conflict" }));
    }
  });
});

describe("previewOf", () => {
  it("keeps a short message whole, with whitespace runs as one space", () => {
    expect(previewOf("  Which   server\n\ndo you\tplay on?  ")).toBe("Which server do you play on?");
    expect(previewOf("")).toBe("");
  });

  it("cuts a long one to the limit in code points, ending with an ellipsis", () => {
    const preview = previewOf("a".repeat(500));
    expect([...preview]).toHaveLength(PREVIEW_LENGTH);
    expect(preview.endsWith("…")).toBe(true);
    expect(previewOf("x".repeat(PREVIEW_LENGTH))).toBe("x".repeat(PREVIEW_LENGTH));
  });

  it("never cuts inside a surrogate pair, an emoji sequence or a combined letter", () => {
    const family = "👨‍👩‍👧"; // 5 code points, one character
    const preview = previewOf(`${"b".repeat(PREVIEW_LENGTH - 3)}${family}${family}`);
    expect(preview).toBe(`${"b".repeat(PREVIEW_LENGTH - 3)}…`);
    const combined = previewOf(`${"c".repeat(PREVIEW_LENGTH - 2)}e\u0301e\u0301`);
    expect(combined).toBe(`${"c".repeat(PREVIEW_LENGTH - 2)}…`);
    expect([...combined].length).toBeLessThanOrEqual(PREVIEW_LENGTH);
  });
});
