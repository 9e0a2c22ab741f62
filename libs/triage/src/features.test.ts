import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { featureBucket, normalizeText, textFeatures, vectorize } from "./features.ts";

describe("ticket text features", () => {
  it("folds full-width and upper-case forms together (NFKC, lower case)", () => {
    expect(normalizeText("ＰＳ５ CRASH")).toBe("ps5 crash");
    expect(textFeatures("ＰＳ５")).toEqual(textFeatures("ps5"));
  });

  it("reads Japanese, Chinese and Korean runs as characters and overlapping pairs, Thai too", () => {
    const ja = textFeatures("ログイン");
    expect(ja).toEqual(expect.arrayContaining(["c:ロ", "c:ログ", "c:グイ", "c:イン"]));
    expect(ja).not.toContain("w:ログイン");
    expect(textFeatures("闪退")).toEqual(["c:闪", "c:退", "c:闪退"]);
    expect(textFeatures("เกมค้าง")).toEqual(expect.arrayContaining(["c:เก", "c:ค้"]));
  });

  it("reads words of spaced scripts, and trigrams that a typo mostly keeps", () => {
    const right = textFeatures("Rückerstattung bitte");
    expect(right).toEqual(expect.arrayContaining(["w:rückerstattung", "w:bitte", "g:<rü", "g:ng>"]));
    const typo = new Set(textFeatures("Rückerstatung").filter((f) => f.startsWith("g:")));
    const shared = right.filter((f) => f.startsWith("g:") && typo.has(f));
    expect(shared.length).toBeGreaterThan(8);
    // Short words get no trigrams.
    expect(textFeatures("lag").filter((f) => f.startsWith("g:"))).toEqual([]);
  });

  it("keeps mixed scripts apart in one text", () => {
    expect(textFeatures("ゲームが crash します")).toEqual(expect.arrayContaining(["w:crash", "c:ゲー", "c:しま"]));
  });

  it("hashes into the configured buckets and scales the vector to unit length", () => {
    const options = { hashBits: 10, charGramsFromLength: 5, wordPairs: false };
    const vector = vectorize("The game crashes, crashes, crashes after the update", options);
    expect(Math.max(...vector.indices)).toBeLessThan(1024);
    expect([...vector.indices]).toEqual([...vector.indices].sort((a, b) => a - b));
    expect(new Set(vector.indices).size).toBe(vector.indices.length);
    expect(vector.values.reduce((sum, v) => sum + v * v, 0)).toBeCloseTo(1, 12);
    expect(featureBucket("w:crash", 10)).toBe(featureBucket("w:crash", 10));
    expect(featureBucket("w:crash", 30)).not.toBe(featureBucket("w:crashes", 30));
  });

  it("adds word pairs only when asked", () => {
    expect(textFeatures("not working", { hashBits: 18, charGramsFromLength: 0, wordPairs: true })).toContain("p:not working");
    expect(textFeatures("not working", { hashBits: 18, charGramsFromLength: 0, wordPairs: false })).toEqual(["w:not", "w:working"]);
  });
});

describe("ticket text features of any text", () => {
  it("always give sorted, distinct buckets in range and a unit-length vector (or none)", { timeout: 60_000 }, () => {
    const options = { hashBits: 12, charGramsFromLength: 5, wordPairs: true };
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        const { indices, values } = vectorize(text, options);
        const ordered = indices.every((index, i) => index < 4096 && (i === 0 || index > indices[i - 1]!));
        const norm = values.reduce((sum, v) => sum + v * v, 0);
        return ordered && (indices.length > 0 ? Math.abs(norm - 1) < 1e-9 : textFeatures(text, options).length === 0);
      }),
      { numRuns: 300 },
    );
  });
});
