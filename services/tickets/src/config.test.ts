import { ConfigError } from "@support/config";
import { describe, expect, it } from "vitest";
import { loadTicketsConfig } from "./config.ts";

describe("tickets config", () => {
  it("bounds the content cache: 10,000 entries by default, never unbounded", () => {
    expect(loadTicketsConfig({}).CONTENT_CACHE_MAX_ENTRIES).toBe(10_000);
    expect(loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "500" }).CONTENT_CACHE_MAX_ENTRIES).toBe(500);
    expect(() => loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "0" })).toThrow(ConfigError);
    expect(() => loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "1.5" })).toThrow(ConfigError);
  });
});
