import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import {
  normalizeEmail, parseBlockInput, parsePlayerInfo, parseResolveInput, playerBlockChangeData, playerCreatedData, tierOnCreate,
  type Player,
} from "./player.ts";

const companyId = "0b7c6a0e-1f0e-4e55-9d0a-4b8f8d7c1a01";
const gameId = "7d1f4b8e-3c2a-4f6b-8e9d-0a1b2c3d4e5f";

function issuesOf(work: () => unknown) {
  try {
    work();
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument") return error.details?.issues;
    throw error;
  }
  throw new Error("expected invalid_argument");
}

describe("email normalisation", () => {
  it("matches emails trimmed and case-insensitively", () => {
    expect(normalizeEmail("  Ann.Lee@Example.COM ")).toBe("ann.lee@example.com");
  });

  it("keeps the address as given (trimmed) for display", () => {
    const values = parseResolveInput({ companyId, gameId, email: " Ann@Example.com " });
    expect(values.email).toBe("Ann@Example.com");
    expect(values.key).toEqual({ kind: "email", email: "Ann@Example.com", emailNormalized: "ann@example.com" });
  });

  it("refuses what cannot be an address", () => {
    expect(issuesOf(() => parseResolveInput({ companyId, gameId, email: "not an email" }))).toEqual([
      { path: "/email", message: "must be an email address" },
    ]);
    expect(issuesOf(() => parseResolveInput({ companyId, gameId, email: "" }))).toEqual([{ path: "/email", message: "must be an email address" }]);
  });
});

describe("tier of a new player: 1 for an identified player unless given", () => {
  it("gives an identified player tier 1 unless a tier is given", () => {
    expect(tierOnCreate(true, null)).toBe(1);
    expect(tierOnCreate(true, 3)).toBe(3);
    expect(parseResolveInput({ companyId, gameId, externalId: "p-1" }).tierOnCreate).toBe(1);
    expect(parseResolveInput({ companyId, gameId, externalId: "p-1", tier: 2 }).tierOnCreate).toBe(2);
  });

  it("leaves an email-only player's tier as given, or unknown", () => {
    expect(tierOnCreate(false, null)).toBeNull();
    expect(parseResolveInput({ companyId, gameId, email: "a@b.c" }).tierOnCreate).toBeNull();
    expect(parseResolveInput({ companyId, gameId, email: "a@b.c", tier: 3 }).tierOnCreate).toBe(3);
  });

  it("does not count a given tier as a change when none was given", () => {
    expect(parseResolveInput({ companyId, gameId, externalId: "p-1" }).tier).toBeNull();
  });

  it("accepts only 1, 2 and 3", () => {
    for (const tier of [0, 4, -1, 1.5]) {
      expect(issuesOf(() => parseResolveInput({ companyId, gameId, externalId: "p", tier }))).toEqual([{ path: "/tier", message: "must be 1, 2 or 3" }]);
      expect(issuesOf(() => parsePlayerInfo({ tier }))).toEqual([{ path: "/tier", message: "must be 1, 2 or 3" }]);
    }
  });
});

describe("resolve input", () => {
  it("identifies by external id when one is given, keeping the email as an attribute", () => {
    const values = parseResolveInput({ companyId, gameId, externalId: " p-1 ", email: "A@B.c", name: " Ann " });
    expect(values.key).toEqual({ kind: "external", externalId: "p-1" });
    expect(values).toMatchObject({ email: "A@B.c", emailNormalized: "a@b.c", name: "Ann" });
  });

  it("needs an external id or an email", () => {
    expect(issuesOf(() => parseResolveInput({ companyId, gameId, name: "Ann" }))).toEqual([
      { path: "", message: "a player needs an externalId or an email" },
    ]);
  });

  it("names every bad input at once", () => {
    const issues = issuesOf(() => parseResolveInput({ companyId: "x", gameId: "y", externalId: " ", name: "", tier: 9 }));
    expect(issues?.map((i) => i.path)).toEqual(["/companyId", "/gameId", "/externalId", "/name", "/tier"]);
  });

  it("lower-cases company and game ids", () => {
    const values = parseResolveInput({ companyId: companyId.toUpperCase(), gameId, externalId: "p" });
    expect(values.companyId).toBe(companyId);
  });
});

describe("block input", () => {
  it("needs exactly one of external id and email", () => {
    const message = "give exactly one of externalId and email";
    expect(issuesOf(() => parseBlockInput({ companyId, gameId }))).toEqual([{ path: "", message }]);
    expect(issuesOf(() => parseBlockInput({ companyId, gameId, externalId: "p", email: "a@b.c" }))).toEqual([{ path: "", message }]);
  });

  it("creates identified players with tier 1 and email players without a tier", () => {
    expect(parseBlockInput({ companyId, gameId, externalId: "p" }).tierOnCreate).toBe(1);
    expect(parseBlockInput({ companyId, gameId, email: "X@Y.z" })).toMatchObject({
      key: { kind: "email", email: "X@Y.z", emailNormalized: "x@y.z" },
      tierOnCreate: null,
    });
  });
});

describe("player info", () => {
  it("changes only what is given", () => {
    expect(parsePlayerInfo({})).toEqual({ name: null, tier: null });
    expect(parsePlayerInfo({ name: " Bo ", tier: 2 })).toEqual({ name: "Bo", tier: 2 });
  });

  it("refuses a blank or overlong name", () => {
    expect(issuesOf(() => parsePlayerInfo({ name: "  " }))).toEqual([{ path: "/name", message: "must not be blank" }]);
    expect(issuesOf(() => parsePlayerInfo({ name: "x".repeat(256) }))?.[0]?.path).toBe("/name");
  });
});

describe("event data", () => {
  const player: Player = {
    id: "11111111-1111-4111-8111-111111111111",
    companyId,
    gameId,
    externalId: null,
    name: "Ann",
    email: "ann@example.com",
    tier: null,
    blocked: true,
    blockedAt: new Date(),
    createdAt: new Date(),
    updatedAt: new Date(),
  };

  it("keeps emails out of block events", () => {
    expect(playerBlockChangeData(player)).toEqual({ playerId: player.id, gameId, externalId: null });
  });

  it("describes a created player fully", () => {
    expect(playerCreatedData(player)).toEqual({ playerId: player.id, gameId, externalId: null, name: "Ann", email: "ann@example.com", tier: null, blocked: true });
  });
});
