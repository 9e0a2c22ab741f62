import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, loadWebhooksConfig, loadWebhooksMigrateConfig } from "./config.ts";

describe("configuration", () => {
  it("has safe defaults", () => {
    const config = loadWebhooksConfig({});
    expect(config).toMatchObject({
      WEBHOOK_ALLOW_HTTP: false,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: false,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_DISABLE_AFTER_HOURS: 120,
      WEBHOOK_RETRY_SCHEDULE: DEFAULT_RETRY_SCHEDULE,
    });
  });

  it("requires the secrets key in production and checks its size", () => {
    expect(() => loadWebhooksConfig({ NODE_ENV: "production" })).toThrow("WEBHOOK_SECRETS_KEY: required when NODE_ENV=production");
    expect(loadWebhooksConfig({ NODE_ENV: "production", WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64") }).NODE_ENV).toBe("production");
    expect(() => loadWebhooksConfig({ WEBHOOK_SECRETS_KEY: randomBytes(31).toString("base64") })).toThrow("WEBHOOK_SECRETS_KEY");
  });

  it("refuses the settings that loosen target safety in production", () => {
    const production = { NODE_ENV: "production", WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64") };
    expect(() => loadWebhooksConfig({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" })).toThrow("WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set when NODE_ENV=production");
    expect(() => loadWebhooksConfig({ ...production, WEBHOOK_ALLOW_HTTP: "true" })).toThrow("WEBHOOK_ALLOW_HTTP: must not be set when NODE_ENV=production");
    expect(loadWebhooksConfig({ ...production, WEBHOOK_ALLOW_HTTP: "false", WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadWebhooksConfig({ WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
  });

  it("lets the migrate command run in production without the secrets key, as the init container does", () => {
    const env = { NODE_ENV: "production", DATABASE_URL: "postgres://owner@db:5432/support", LOG_LEVEL: "warn" };
    expect(loadWebhooksMigrateConfig(env)).toEqual({ DATABASE_URL: "postgres://owner@db:5432/support", LOG_LEVEL: "warn" });
    expect(() => loadWebhooksConfig(env)).toThrow("WEBHOOK_SECRETS_KEY");
  });

  it("refuses a malformed retry schedule and bounds", () => {
    expect(() => loadWebhooksConfig({ WEBHOOK_RETRY_SCHEDULE: "5,soon" })).toThrow("WEBHOOK_RETRY_SCHEDULE");
    expect(() => loadWebhooksConfig({ WEBHOOK_PER_WEBHOOK_CONCURRENCY: "0" })).toThrow("WEBHOOK_PER_WEBHOOK_CONCURRENCY");
  });
});
