import { describe, expect, it } from "vitest";
import { parseNewCompany } from "./company.ts";

describe("company rules", () => {
  it("fills in the defaults: primary language en, no immediate deletion, auto-close after 168 hours", () => {
    expect(parseNewCompany({ name: "Studio" })).toEqual({
      name: "Studio",
      primaryLanguage: "en",
      allowImmediateDeletion: false,
      autoCloseWaitingAfterHours: 168,
    });
  });

  it("accepts fractional auto-close hours above zero only", () => {
    expect(parseNewCompany({ name: "S", autoCloseWaitingAfterHours: 0.5 }).autoCloseWaitingAfterHours).toBe(0.5);
    expect(() => parseNewCompany({ name: "S", autoCloseWaitingAfterHours: 0 })).toThrow();
    expect(() => parseNewCompany({ name: "S", autoCloseWaitingAfterHours: Number.NaN })).toThrow();
  });

  it("needs a language code as primary language", () => {
    expect(parseNewCompany({ name: "S", primaryLanguage: "zh-Hans" }).primaryLanguage).toBe("zh-Hans");
    expect(() => parseNewCompany({ name: "S", primaryLanguage: "english" })).toThrow();
  });
});
