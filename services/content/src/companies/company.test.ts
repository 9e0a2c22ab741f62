import { describe, expect, it } from "vitest";
import { parseNewCompany } from "./company.ts";

describe("company rules", () => {
  it("fills in the defaults: primary language en, no immediate deletion, auto-close after 168 hours, the gateway's API rate limit", () => {
    expect(parseNewCompany({ name: "Studio" })).toEqual({
      name: "Studio",
      primaryLanguage: "en",
      allowImmediateDeletion: false,
      autoCloseWaitingAfterHours: 168,
      apiRateLimitPerMinute: null,
      requireTwoFactor: false,
      emailSender: { name: null, address: null },
    });
  });

  it("takes an API rate limit per minute as a positive integer", () => {
    expect(parseNewCompany({ name: "S", apiRateLimitPerMinute: 600 }).apiRateLimitPerMinute).toBe(600);
    for (const bad of [0, -1, 2.5, 10_000_001]) expect(() => parseNewCompany({ name: "S", apiRateLimitPerMinute: bad }), String(bad)).toThrow();
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

describe("a company's mail sender", () => {
  it("is absent by default and takes a one-line name and a plain address", () => {
    expect(parseNewCompany({ name: "S" }).emailSender).toEqual({ name: null, address: null });
    expect(parseNewCompany({ name: "S", email: { senderName: "Star Studio Support", senderAddress: "help@studio.example" } }).emailSender).toEqual({
      name: "Star Studio Support",
      address: "help@studio.example",
    });
    for (const senderName of ["", "  ", "a\r\nBcc: x@example.com", "x".repeat(101)]) expect(() => parseNewCompany({ name: "S", email: { senderName } }), senderName).toThrow();
    for (const senderAddress of ["help", "help@studio", "Star <help@studio.example>", "help@studio.example\n", "a b@studio.example"]) {
      expect(() => parseNewCompany({ name: "S", email: { senderAddress } }), senderAddress).toThrow();
    }
  });
});
