import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadContentConfig, loadContentMigrateConfig } from "../config.ts";
import { createTotpSecretBox, DEVELOPMENT_TOTP_KEY, parseTotpEncryptionKey, totpSecretBoxFor } from "./two-factor-secret-box.ts";
import { matchingTotpStep, newRecoveryCodes, newTotpSecret, normaliseRecoveryCode, scopeAfterPassword, scopeAfterSingleSignOn, totpCode } from "./two-factor.ts";

describe("TOTP codes", () => {
  const secret = newTotpSecret();
  const now = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
  const step = Math.floor(now.getTime() / 30_000);

  it("match the current step and its neighbours, and name the step they belong to", () => {
    expect(matchingTotpStep(secret, totpCode(secret, now), now)).toBe(step);
    expect(matchingTotpStep(secret, totpCode(secret, new Date(now.getTime() - 30_000)), now)).toBe(step - 1);
    expect(matchingTotpStep(secret, totpCode(secret, new Date(now.getTime() + 30_000)), now)).toBe(step + 1);
    expect(matchingTotpStep(secret, totpCode(secret, new Date(now.getTime() + 60_000)), now)).toBeUndefined();
    for (const garbage of ["", "12345", "1234567", "abcdef"]) expect(matchingTotpStep(secret, garbage, now)).toBeUndefined();
  });
});

describe("recovery codes", () => {
  it("are ten distinct codes, read back whatever the case, spaces or dashes", () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    expect(normaliseRecoveryCode(` ${codes[0]!.toUpperCase().replaceAll("-", " ")} `)).toBe(codes[0]!.replaceAll("-", ""));
    for (const bad of ["", "123456", "abcd-efgh-ijk0", "abcd-efgh-ijkm-n"]) expect(normaliseRecoveryCode(bad)).toBeUndefined();
  });
});

describe("the session a password alone opens", () => {
  it("is limited to enrolment only when the company requires two-factor and the user has none", () => {
    expect(scopeAfterPassword({ enabled: false, required: true })).toBe("two_factor_enrolment");
    expect(scopeAfterPassword({ enabled: false, required: false })).toBe("full");
    expect(scopeAfterPassword({ enabled: true, required: true })).toBe("full");
  });

  it("(single sign-on, later) is full when the provider asserts MFA, else as after a password", () => {
    expect(scopeAfterSingleSignOn({ enabled: false, required: true }, true)).toBe("full");
    expect(scopeAfterSingleSignOn({ enabled: false, required: true }, false)).toBe("two_factor_enrolment");
  });
});

describe("TOTP_ENCRYPTION_KEY", () => {
  it("is required in production, must be 32 bytes of base64, and is not needed to migrate", () => {
    expect(() => loadContentConfig({ NODE_ENV: "production" })).toThrow("TOTP_ENCRYPTION_KEY: required when NODE_ENV=production");
    expect(() => loadContentConfig({ TOTP_ENCRYPTION_KEY: randomBytes(31).toString("base64") })).toThrow("TOTP_ENCRYPTION_KEY: must be base64 of exactly 32 bytes");
    expect(loadContentConfig({ TOTP_ENCRYPTION_KEY: randomBytes(32).toString("base64") }).TOTP_ENCRYPTION_KEY).toHaveLength(44);
    expect(loadContentConfig({}).TOTP_ENCRYPTION_KEY).toBe("");
    expect(loadContentMigrateConfig({ NODE_ENV: "production" }).DATABASE_URL).toBeTruthy();
  });

  it("seals with a fresh nonce each time, and opens only under the same key and user", () => {
    const key = randomBytes(32);
    const box = createTotpSecretBox(key);
    const a = box.seal("JBSWY3DPEHPK3PXP", "user-1");
    expect(a).not.toBe(box.seal("JBSWY3DPEHPK3PXP", "user-1"));
    expect(box.open(a, "user-1")).toBe("JBSWY3DPEHPK3PXP");
    expect(() => box.open(a, "user-2")).toThrow();
    expect(() => createTotpSecretBox(DEVELOPMENT_TOTP_KEY).open(a, "user-1")).toThrow();
    expect(totpSecretBoxFor(key.toString("base64")).open(a, "user-1")).toBe("JBSWY3DPEHPK3PXP");
    expect(() => parseTotpEncryptionKey("not base64 at all")).toThrow();
  });
});
