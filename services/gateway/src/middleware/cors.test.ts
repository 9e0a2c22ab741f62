import { describe, expect, it } from "vitest";
import { parseAllowedOrigins } from "./cors.ts";

describe("WEB_SUPPORT_ORIGINS", () => {
  it("defaults to the origin of WEB_SUPPORT_URL", () => {
    expect([...parseAllowedOrigins("", "https://help.example.com/support/?brand=x")]).toEqual(["https://help.example.com"]);
    expect([...parseAllowedOrigins(" , ", "http://127.0.0.1:8080/support/")]).toEqual(["http://127.0.0.1:8080"]);
  });

  it("takes comma-separated origins and refuses anything that is not exactly an origin", () => {
    expect([...parseAllowedOrigins("https://a.example, http://localhost:5173/", "https://x.example/")]).toEqual(["https://a.example", "http://localhost:5173"]);
    for (const bad of ["*", "a.example", "https://a.example/support", "ftp://a.example", "https://a.example?x=1"]) {
      expect(() => parseAllowedOrigins(bad, "https://x.example/"), bad).toThrow(/WEB_SUPPORT_ORIGINS/);
    }
  });
});
