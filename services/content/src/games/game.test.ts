import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import { auditedEnvironment, checkJwks, isSlug, parseGameUpdate, parseJwksText, parseNewGame, parseTokenOverlap } from "./game.ts";

describe("game rules", () => {
  it("accepts lower-case slugs with inner hyphens only", () => {
    for (const slug of ["galaxy", "galaxy-raiders", "g2", "a"]) expect(isSlug(slug)).toBe(true);
    for (const slug of ["", "Galaxy", "-galaxy", "galaxy-", "galaxy raiders", "galaxy_raiders", "a".repeat(65)]) {
      expect(isSlug(slug)).toBe(false);
    }
  });

  it("needs at least one known language, each once", () => {
    const issuesOf = (languages: string[]) => {
      try {
        parseNewGame({ name: "G", slug: "g", languages });
      } catch (error) {
        return (error as AppError).details?.issues;
      }
      return [];
    };
    expect(issuesOf([])).toEqual([{ path: "/languages", message: expect.any(String) }]);
    expect(issuesOf(["en", "xx", "en"])).toEqual([
      { path: "/languages/1", message: "must be a language code" },
      { path: "/languages/2", message: "is listed twice" },
    ]);
    expect(issuesOf(["en", "zh-Hant"])).toEqual([]);
  });

  it("defaults blockUnverifiedPlayers to false and the JWKS to none", () => {
    expect(parseNewGame({ name: " Galaxy ", slug: "galaxy", languages: ["en"] })).toEqual({
      name: "Galaxy",
      slug: "galaxy",
      languages: ["en"],
      metadataJwks: null,
      blockUnverifiedPlayers: false,
    });
  });

  it("accepts a JWKS of public keys and names what is wrong with a bad one", () => {
    const good = { keys: [{ kty: "RSA", kid: "k1", n: "abc", e: "AQAB" }] };
    const issues: { path: string; message: string }[] = [];
    expect(checkJwks(good, "/metadataJwks", issues)).toEqual(good);
    expect(issues).toEqual([]);

    checkJwks({ keys: [{ kid: "x" }, "nope", { kty: "RSA", d: "private" }] }, "/metadataJwks", issues);
    expect(issues.map((issue) => issue.path)).toEqual(["/metadataJwks/keys/0/kty", "/metadataJwks/keys/1", "/metadataJwks/keys/2/d"]);

    const shapeIssues: { path: string; message: string }[] = [];
    checkJwks({ key: [] }, "/metadataJwks", shapeIssues);
    checkJwks([], "/metadataJwks", shapeIssues);
    expect(shapeIssues).toHaveLength(2);
  });
});

describe("game changes in the settings", () => {
  const issuesOf = (work: () => unknown) => {
    try {
      work();
    } catch (error) {
      return (error as AppError).details?.issues?.map((issue) => issue.path);
    }
    return [];
  };

  it("checks only what a change names, by the rules of a new game", () => {
    expect(parseGameUpdate({ name: " Nebula " })).toEqual({ name: "Nebula" });
    expect(parseGameUpdate({ languages: ["de", "en"], blockUnverifiedPlayers: true })).toEqual({ languages: ["de", "en"], blockUnverifiedPlayers: true });
    expect(issuesOf(() => parseGameUpdate({ name: " ", languages: [], blockUnverifiedPlayers: "yes" }))).toEqual(["/name", "/languages", "/blockUnverifiedPlayers"]);
  });

  it("reads a pasted JWKS, refusing bad JSON and private keys", () => {
    expect(parseJwksText("")).toBeNull();
    expect(parseJwksText('{"keys":[{"kty":"RSA","kid":"k","n":"abc","e":"AQAB"}]}')).toEqual({ keys: [{ kty: "RSA", kid: "k", n: "abc", e: "AQAB" }] });
    expect(issuesOf(() => parseJwksText("{not json"))).toEqual(["/metadataJwks"]);
    expect(issuesOf(() => parseJwksText('{"keys":[{"kty":"RSA","d":"secret"}]}'))).toEqual(["/metadataJwks/keys/0/d"]);
  });

  it("takes a rotation's overlap from 0 to 30 days, 24 hours by default", () => {
    expect(parseTokenOverlap(undefined)).toBe(24 * 3600);
    expect(parseTokenOverlap(0)).toBe(0);
    expect(issuesOf(() => parseTokenOverlap(-1))).toEqual(["/overlapSeconds"]);
    expect(issuesOf(() => parseTokenOverlap(31 * 24 * 3600))).toEqual(["/overlapSeconds"]);
  });

  it("keeps tokens out of the audit log but their prefixes", () => {
    const at = new Date("2026-12-01T00:00:00Z");
    const audited = auditedEnvironment({
      id: "e", companyId: "c", gameId: "g", name: "production", token: "0123456789abcdef", previousToken: "fedcba9876543210", previousTokenExpiresAt: at, tokenRotatedAt: at, createdAt: at,
    }, "Galaxy");
    expect(audited).toEqual({ game: "Galaxy", name: "production", tokenPrefix: "01234567", previousTokenPrefix: "fedcba98", previousTokenExpiresAt: at.toISOString() });
  });
});
