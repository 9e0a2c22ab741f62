import { ConfigError } from "@support/config";
import { describe, expect, it } from "vitest";
import { loadTicketsConfig, loadTicketsMigrateConfig } from "./config.ts";

describe("tickets config", () => {
  it("bounds the content cache: 10,000 entries by default, never unbounded", () => {
    expect(loadTicketsConfig({}).CONTENT_CACHE_MAX_ENTRIES).toBe(10_000);
    expect(loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "500" }).CONTENT_CACHE_MAX_ENTRIES).toBe(500);
    expect(() => loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "0" })).toThrow(ConfigError);
    expect(() => loadTicketsConfig({ CONTENT_CACHE_MAX_ENTRIES: "1.5" })).toThrow(ConfigError);
  });

  it("requires CURSOR_SECRET in production instead of deriving it from DATABASE_URL", () => {
    expect(() => loadTicketsConfig({ NODE_ENV: "production" })).toThrow("CURSOR_SECRET: required when NODE_ENV=production");
    expect(loadTicketsConfig({ NODE_ENV: "production", CURSOR_SECRET: "from-a-secret" }).cursorSecret).toBe("from-a-secret");
    // Elsewhere the derived key lets replicas sharing a database agree without configuration.
    expect(loadTicketsConfig({}).cursorSecret).toBe(loadTicketsConfig({}).cursorSecret);
    expect(loadTicketsConfig({}).cursorSecret).not.toBe("");
  });

  it("lets the migrate command run in production without CURSOR_SECRET, as the init container does", () => {
    const env = { NODE_ENV: "production", DATABASE_URL: "postgres://owner@db:5432/support", LOG_LEVEL: "warn" };
    expect(loadTicketsMigrateConfig(env)).toEqual({ DATABASE_URL: "postgres://owner@db:5432/support", LOG_LEVEL: "warn" });
  });
});
