import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import {
  checkLanguage, checkResource, checkVerificationAllowed, createSessionCode, hashSessionCode, looksLikeNumber, mergeMetadata,
  parseSignedMetadataClaim, parseUnsignedMetadata, playerKeysOf, typeQueryFields, verificationOf, type FieldType,
} from "./session.ts";

function issuesOf(work: () => unknown) {
  try {
    work();
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument") return error.details?.issues;
    throw error;
  }
  throw new Error("expected invalid_argument");
}

describe("precedence of signed over unsigned metadata", () => {
  it("keeps unsigned metadata as it is when nothing is signed", () => {
    const unsigned = { player: { id: "p1", name: "Ann" }, tags: ["a"], fields: { level: 3 } };
    expect(mergeMetadata(unsigned, undefined)).toEqual(unsigned);
  });

  it("lets signed field values win key by key and keeps unsigned keys the signature does not name", () => {
    const merged = mergeMetadata({ fields: { level: 3, server: "eu", vip: false } }, { fields: { level: 40, vip: true } });
    expect(merged.fields).toEqual({ level: 40, server: "eu", vip: true });
  });

  it("replaces the unsigned tags with signed tags, and keeps unsigned tags when none are signed", () => {
    expect(mergeMetadata({ tags: ["vip", "spoofed"] }, { tags: ["signed"] }).tags).toEqual(["signed"]);
    expect(mergeMetadata({ tags: ["kept"] }, { fields: { level: 1 } }).tags).toEqual(["kept"]);
    expect(mergeMetadata({ tags: ["cleared"] }, { tags: [] }).tags).toEqual([]);
  });

  it("replaces the unsigned player as a whole: no unsigned name or email survives next to a signed player", () => {
    const merged = mergeMetadata({ player: { id: "victim", name: "Spoofed", email: "x@example.com", tier: 3 } }, { player: { id: "real" } });
    expect(merged.player).toEqual({ id: "real" });
  });

  it("keeps the unsigned player when the signature names none", () => {
    expect(mergeMetadata({ player: { name: "Ann" } }, { tags: ["t"] }).player).toEqual({ name: "Ann" });
  });

  it("does not share arrays or objects with its inputs", () => {
    const signed = { player: { id: "p" }, tags: ["t"] };
    const merged = mergeMetadata({}, signed);
    merged.tags!.push("x");
    merged.player!.name = "changed";
    expect(signed).toEqual({ player: { id: "p" }, tags: ["t"] });
  });
});

describe("verification level: verified, unverified, anonymous", () => {
  it("is verified with signed metadata naming the player, also one without an id", () => {
    const signed = { player: { id: "p" } };
    expect(verificationOf(signed, mergeMetadata({ player: { id: "other" } }, signed))).toBe("verified");
    const byEmail = { player: { email: "a@example.com" } };
    expect(verificationOf(byEmail, mergeMetadata({}, byEmail))).toBe("verified");
  });

  it("is verified with signed metadata and no player at all", () => {
    expect(verificationOf({ tags: ["t"] }, mergeMetadata({}, { tags: ["t"] }))).toBe("verified");
  });

  it("is unverified for a player id without signature, anonymous without an id", () => {
    expect(verificationOf(undefined, { player: { id: "p" } })).toBe("unverified");
    expect(verificationOf(undefined, { player: { name: "Ann", email: "a@example.com" } })).toBe("anonymous");
    expect(verificationOf(undefined, {})).toBe("anonymous");
  });

  it("does not vouch for an unsigned player id kept next to signed metadata that names no player", () => {
    const signed = { fields: { level: 1 } };
    expect(verificationOf(signed, mergeMetadata({ player: { id: "claimed" } }, signed))).toBe("unverified");
    expect(verificationOf(signed, mergeMetadata({ player: { name: "Ann" } }, signed))).toBe("anonymous");
  });

  it("refuses every unverified identity (an unsigned id or email), and only those, in a game that blocks them", () => {
    const byId = { player: { id: "p" } };
    const byEmail = { player: { email: "victim@example.com" } };
    expect(issuesOf(() => checkVerificationAllowed("unverified", byId, true))).toEqual([{ path: "/signedMetadataToken", message: expect.stringContaining("is required") }]);
    // An unsigned email names someone as much as an id does (D8 calls it "anonymous").
    expect(issuesOf(() => checkVerificationAllowed("anonymous", byEmail, true))).toEqual([{ path: "/signedMetadataToken", message: expect.stringContaining("is required") }]);
    expect(() => checkVerificationAllowed("anonymous", { player: { name: "Ann" } }, true)).not.toThrow();
    expect(() => checkVerificationAllowed("anonymous", {}, true)).not.toThrow();
    expect(() => checkVerificationAllowed("verified", byId, true)).not.toThrow();
    expect(() => checkVerificationAllowed("unverified", byId, false)).not.toThrow();
    expect(() => checkVerificationAllowed("anonymous", byEmail, false)).not.toThrow();
  });
});

describe("field values from the redirect's query", () => {
  const types = new Map<string, FieldType>([
    ["level", "number"],
    ["vip", "boolean"],
    ["name", "text"],
    ["server", "dropdown"],
  ]);

  it("turns a number-looking value of a number field into a number", () => {
    expect(typeQueryFields({ level: "42", name: "42" }, types)).toEqual({ level: 42, name: "42" });
    expect(typeQueryFields({ level: "-1.5" }, types)).toEqual({ level: -1.5 });
    expect(typeQueryFields({ level: "2e3" }, types)).toEqual({ level: 2000 });
  });

  it("leaves a value of a number field that does not look like a number as text", () => {
    for (const value of ["", " ", "abc", "0x10", "Infinity", "1,5", "1 000", "NaN", "1e999"]) {
      expect(typeQueryFields({ level: value }, types)).toEqual({ level: value });
    }
  });

  it("turns exactly true and false of a boolean field into booleans", () => {
    expect(typeQueryFields({ vip: "true" }, types)).toEqual({ vip: true });
    expect(typeQueryFields({ vip: "false" }, types)).toEqual({ vip: false });
    expect(typeQueryFields({ vip: "TRUE" }, types)).toEqual({ vip: "TRUE" });
    expect(typeQueryFields({ vip: "1" }, types)).toEqual({ vip: "1" });
  });

  it("leaves text of other fields, of unknown fields, and repeated values as they came", () => {
    expect(typeQueryFields({ name: "true", unknown: "7", server: ["eu", "us"], level: ["1", "2"] }, types)).toEqual({
      name: "true",
      unknown: "7",
      server: ["eu", "us"],
      level: ["1", "2"],
    });
  });

  it("knows what looks like a number", () => {
    expect(["0", "7", "+7", "-7", "3.", ".5", "1.25e-3", " 8 "].every(looksLikeNumber)).toBe(true);
    expect(["", "-", ".", "e5", "1e", "--1", "1.2.3"].some(looksLikeNumber)).toBe(false);
  });
});

describe("metadata shape", () => {
  it("accepts the player object (id, name, email, tier), tags and field values, trimming texts and dropping duplicates and blanks", () => {
    expect(parseUnsignedMetadata({ player: { id: " p1 ", name: "Ann", email: "a@example.com", tier: 2 }, tags: ["a", "a", " ", "b"], fields: { x: ["1"], y: 1, z: true, w: "t" } })).toEqual({
      player: { id: "p1", name: "Ann", email: "a@example.com", tier: 2 },
      tags: ["a", "b"],
      fields: { x: ["1"], y: 1, z: true, w: "t" },
    });
  });

  it("treats blank player values as not given", () => {
    expect(parseUnsignedMetadata({ player: { id: "  ", email: "" } })).toEqual({ player: {} });
  });

  it("refuses a bad email, tier or field value with body paths", () => {
    expect(issuesOf(() => parseUnsignedMetadata({ player: { email: "nope", tier: 4 }, fields: { "a/b": { nested: true } } }))).toEqual([
      { path: "/player/email", message: "must be an email address" },
      { path: "/player/tier", message: "must be 1, 2 or 3" },
      { path: "/fields/a~1b", message: "must be a string, a number, a boolean or an array of strings" },
    ]);
  });

  it("refuses a malformed signed claim at /signedMetadataToken, naming the claim member", () => {
    expect(issuesOf(() => parseSignedMetadataClaim({ player: { tier: "gold" }, tags: "x" }))).toEqual([
      { path: "/signedMetadataToken", message: "claim metadata.player.tier must be 1, 2 or 3" },
      { path: "/signedMetadataToken", message: "claim metadata.tags must be an array of strings" },
    ]);
    expect(issuesOf(() => parseSignedMetadataClaim("text"))).toEqual([{ path: "/signedMetadataToken", message: "claim metadata must be an object" }]);
  });

  it("keeps absent members absent, so precedence can tell them from empty ones", () => {
    expect(parseSignedMetadataClaim({})).toEqual({});
    expect(parseSignedMetadataClaim({ tags: [] })).toEqual({ tags: [] });
  });

  it("records the player's keys for erasure, the email normalised", () => {
    expect(playerKeysOf({ player: { id: "p", email: "Ann@Example.COM" } })).toEqual({ externalId: "p", emailNormalized: "ann@example.com" });
    expect(playerKeysOf({})).toEqual({ externalId: null, emailNormalized: null });
  });
});

describe("language and resource", () => {
  it("accepts the API's language codes and nothing else", () => {
    expect(checkLanguage("pt-BR")).toBe("pt-BR");
    expect(checkLanguage(undefined)).toBeNull();
    expect(issuesOf(() => checkLanguage("english"))).toEqual([{ path: "/language", message: "must be a language code" }]);
    expect(issuesOf(() => checkLanguage("EN"))).toEqual([{ path: "/language", message: "must be a language code" }]);
  });

  it("accepts only a configured resource key of the game", () => {
    expect(checkResource("billing", ["billing", "faq"])).toBe("billing");
    expect(checkResource(undefined, [])).toBeNull();
    expect(issuesOf(() => checkResource("Billing", ["billing"]))).toEqual([{ path: "/resource", message: "is not a resource of the game" }]);
  });
});

describe("session code", () => {
  it("makes URL-safe codes of at least 128 random bits, never the same twice", () => {
    const codes = Array.from({ length: 2000 }, () => createSessionCode());
    for (const code of codes) {
      expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(code, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(codes).size).toBe(codes.length);
    // Every base64url character shows up: the code is not a hex string or a counter.
    expect(new Set(codes.join("")).size).toBe(64);
  });

  it("hashes a code with SHA-256, so the code itself need not be stored", () => {
    expect(hashSessionCode("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
