import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import { checkJwks, isSlug, parseNewGame } from "./game.ts";

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
