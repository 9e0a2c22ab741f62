import { describe, expect, it } from "vitest";
import { normalizeMessage } from "./duplicate.ts";

describe("duplicate message normalisation", () => {
  it("trims, folds case and collapses every kind of whitespace", () => {
    expect(normalizeMessage("  My GAME\tcrashes \n\n on   start  ")).toBe("my game crashes on start");
    expect(normalizeMessage("a\u00a0b\u2003c")).toBe("a b c");
  });

  it("folds the cases lower-casing alone misses", () => {
    expect(normalizeMessage("Straße")).toBe(normalizeMessage("STRASSE"));
    expect(normalizeMessage("ΣΊΣΥΦΟΣ")).toBe(normalizeMessage("σίσυφος"));
  });

  it("treats compatibility forms as their plain letters", () => {
    expect(normalizeMessage("ＨＥＬＬＯ ﬁx")).toBe("hello fix");
  });

  it("keeps different words different", () => {
    expect(normalizeMessage("refund please")).not.toBe(normalizeMessage("refund, please"));
  });
});
