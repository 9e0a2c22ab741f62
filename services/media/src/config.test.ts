import { describe, expect, it } from "vitest";
import { loadMediaConfig } from "./config.ts";

const base = { S3_BUCKET: "attachments" };

describe("media configuration", () => {
  it("defaults: 15 minute uploads, 5 minute downloads, unused uploads kept 24 hours", () => {
    const config = loadMediaConfig(base);
    expect(config).toMatchObject({
      UPLOAD_URL_EXPIRES_SECONDS: 900,
      DOWNLOAD_URL_EXPIRES_SECONDS: 300,
      UNUSED_ATTACHMENT_TTL_HOURS: 24,
      S3_PUBLIC_ENDPOINT: "",
      S3_FORCE_PATH_STYLE: false,
    });
  });

  it("needs a bucket", () => {
    expect(() => loadMediaConfig({})).toThrow(/S3_BUCKET/);
  });

  it("refuses a download URL valid longer than 5 minutes and non-integer expiries", () => {
    expect(() => loadMediaConfig({ ...base, DOWNLOAD_URL_EXPIRES_SECONDS: "301" })).toThrow(/DOWNLOAD_URL_EXPIRES_SECONDS/);
    expect(() => loadMediaConfig({ ...base, DOWNLOAD_URL_EXPIRES_SECONDS: "0" })).toThrow(/DOWNLOAD_URL_EXPIRES_SECONDS/);
    expect(() => loadMediaConfig({ ...base, UPLOAD_URL_EXPIRES_SECONDS: "1.5" })).toThrow(/UPLOAD_URL_EXPIRES_SECONDS/);
    expect(loadMediaConfig({ ...base, UPLOAD_URL_EXPIRES_SECONDS: "1", DOWNLOAD_URL_EXPIRES_SECONDS: "1" }).UPLOAD_URL_EXPIRES_SECONDS).toBe(1);
  });

  it("never sweeps an upload whose URL may still be used", () => {
    expect(() => loadMediaConfig({ ...base, UNUSED_ATTACHMENT_TTL_HOURS: "0.1", UPLOAD_URL_EXPIRES_SECONDS: "3600" })).toThrow(/UNUSED_ATTACHMENT_TTL_HOURS/);
    expect(loadMediaConfig({ ...base, UNUSED_ATTACHMENT_TTL_HOURS: "1", UPLOAD_URL_EXPIRES_SECONDS: "3600" }).UNUSED_ATTACHMENT_TTL_HOURS).toBe(1);
  });

  it("needs both S3 credentials or neither (the SDK's default chain)", () => {
    expect(() => loadMediaConfig({ ...base, S3_ACCESS_KEY_ID: "key" })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(loadMediaConfig({ ...base, S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret" }).S3_ACCESS_KEY_ID).toBe("key");
  });
});
