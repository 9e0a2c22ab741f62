import { describe, expect, it } from "vitest";
import {
  acceptMetadata, checkFieldValue, fieldShapeIssues, fieldsForGame, isCalendarDate, isDateTime, tagsForGame, type Definitions,
  type FieldDefinition,
} from "./field-values.ts";

const GAME = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

const definitions: Definitions = {
  tags: [
    { gameId: null, name: "bug" },
    { gameId: GAME, name: "crash" },
    { gameId: OTHER, name: "other-game-tag" },
  ],
  fields: [
    { gameId: null, key: "level", type: "number", options: [] },
    { gameId: null, key: "note", type: "text", options: [] },
    { gameId: null, key: "spender", type: "boolean", options: [] },
    { gameId: null, key: "bought", type: "date", options: [] },
    { gameId: GAME, key: "ship", type: "dropdown", options: ["fighter", "explorer", "freighter"] },
    { gameId: OTHER, key: "farm", type: "text", options: [] },
    // A game's own definition wins over a company-wide one with the same key.
    { gameId: null, key: "region", type: "text", options: [] },
    { gameId: GAME, key: "region", type: "dropdown", options: ["eu", "us"] },
  ],
};

const field = (key: string): FieldDefinition => fieldsForGame(definitions, GAME).get(key)!;

describe("definitions for a game", () => {
  it("are the company-wide ones and the game's own", () => {
    expect([...tagsForGame(definitions, GAME)].sort()).toEqual(["bug", "crash"]);
    expect([...fieldsForGame(definitions, GAME).keys()].sort()).toEqual(["bought", "level", "note", "region", "ship", "spender"]);
    expect(field("region").type).toBe("dropdown");
    expect(fieldsForGame(definitions, OTHER).get("region")!.type).toBe("text");
  });
});

describe("field value against its type", () => {
  it.each([
    ["note", "hello", true],
    ["note", 5, false],
    ["level", 12, true],
    ["level", "12", false],
    ["spender", false, true],
    ["spender", "true", false],
    ["bought", "2026-02-28", true],
    ["bought", "2026-02-30", false],
    ["bought", "2026-02-28T10:00:00Z", true],
    ["bought", "yesterday", false],
    ["ship", "fighter", true],
    ["ship", ["fighter", "explorer"], true],
    ["ship", "tank", false],
    ["ship", ["fighter", "tank"], false],
    ["ship", 3, false],
    ["note", ["a"], false],
  ] as const)("%s = %j fits: %s", (key, value, fits) => {
    expect(checkFieldValue(field(key), value as never).ok).toBe(fits);
  });

  it("stores a multi-select without repeated options", () => {
    expect(checkFieldValue(field("ship"), ["fighter", "fighter", "explorer"])).toEqual({ ok: true, value: ["fighter", "explorer"] });
  });
});

describe("shape of field values", () => {
  it("names values that are not a string, number, boolean or array of strings", () => {
    expect(fieldShapeIssues({ a: "x", b: 1, c: true, d: ["x"], e: { x: 1 }, f: [["x"]], g: null, "h/i": [1] }, "/metadata/fields")).toEqual([
      { path: "/metadata/fields/e", message: expect.any(String) },
      { path: "/metadata/fields/f", message: expect.any(String) },
      { path: "/metadata/fields/g", message: expect.any(String) },
      { path: "/metadata/fields/h~1i", message: expect.any(String) },
    ]);
  });
});

describe("dates", () => {
  it("accept real calendar dates and RFC 3339 date-times only", () => {
    expect(isCalendarDate("2024-02-29")).toBe(true);
    expect(isCalendarDate("2023-02-29")).toBe(false);
    expect(isCalendarDate("2023-1-01")).toBe(false);
    expect(isDateTime("2026-01-01T00:00:00.123+02:00")).toBe(true);
    expect(isDateTime("2026-01-01T24:00:00Z")).toBe(false);
    expect(isDateTime("2026-01-01")).toBe(false);
  });
});

describe("SDK metadata", () => {
  it("keeps what is defined and fits, and reports what it drops", () => {
    const result = acceptMetadata(definitions, GAME, ["bug", "crash", "other-game-tag", "nope", "bug"], {
      level: 3,
      note: 7,
      ship: "tank",
      region: "eu",
      farm: "x",
      unknown: "y",
    });
    expect(result.tags).toEqual(["bug", "crash"]);
    expect(result.fields).toEqual({ level: 3, region: "eu" });
    expect(result.ignored.map((i) => i.path)).toEqual([
      "/metadata/tags/2",
      "/metadata/tags/3",
      "/metadata/fields/note",
      "/metadata/fields/ship",
      "/metadata/fields/farm",
      "/metadata/fields/unknown",
    ]);
  });
});
