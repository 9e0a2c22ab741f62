import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, dkimOf, loadEmailConfig, loadEmailMigrateConfig } from "./config.ts";

describe("configuration", () => {
  it("has safe defaults: no relay (mails wait), no DKIM, about a day of retries", () => {
    const config = loadEmailConfig({});
    expect(config).toMatchObject({ PORT: 50056, SMTP_URL: "", EMAIL_REPLY_ADDRESS: "", EMAIL_RETRY_SCHEDULE: DEFAULT_RETRY_SCHEDULE, EMAIL_QUEUE_MAX: 100_000 });
    expect(dkimOf(config)).toBeUndefined();
  });

  it("requires a relay in production", () => {
    expect(() => loadEmailConfig({ NODE_ENV: "production" })).toThrow("SMTP_URL: required when NODE_ENV=production");
    expect(loadEmailConfig({ NODE_ENV: "production", SMTP_URL: "smtp://relay.example:587" }).SMTP_URL).toBe("smtp://relay.example:587");
  });

  it("refuses a half DKIM setting, a plus-addressed reply address and a bad schedule, naming each", () => {
    expect(() => loadEmailConfig({ EMAIL_DKIM_DOMAIN: "studio.example" })).toThrow("set all three or none");
    expect(() => loadEmailConfig({ EMAIL_REPLY_ADDRESS: "support+x@studio.example" })).toThrow("EMAIL_REPLY_ADDRESS");
    expect(() => loadEmailConfig({ EMAIL_RETRY_SCHEDULE: "60,,300" })).toThrow("EMAIL_RETRY_SCHEDULE");
    expect(() => loadEmailConfig({ EMAIL_QUEUE_MAX: "0" })).toThrow("EMAIL_QUEUE_MAX");
  });

  it("reads the DKIM key from its file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dkim-"));
    writeFileSync(path.join(dir, "private.key"), "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n");
    const config = loadEmailConfig({ EMAIL_DKIM_DOMAIN: "studio.example", EMAIL_DKIM_SELECTOR: "s1", EMAIL_DKIM_KEY_FILE: path.join(dir, "private.key") });
    expect(dkimOf(config)).toEqual({ domainName: "studio.example", keySelector: "s1", privateKey: expect.stringContaining("BEGIN PRIVATE KEY") });
  });

  it("migrates with the database and log level alone", () => {
    expect(loadEmailMigrateConfig({ NODE_ENV: "production" })).toEqual({ DATABASE_URL: "postgres://postgres@127.0.0.1:5432/support", LOG_LEVEL: "info" });
  });
});
