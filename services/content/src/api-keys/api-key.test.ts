import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { displayPrefixOf, generateApiKeySecret, hashApiKey, isKeyHash } from "./api-key.ts";

describe("api key secrets", () => {
  it("are psk_ plus 32 random bytes in base64url, different every time", () => {
    const a = generateApiKeySecret();
    const b = generateApiKeySecret();
    expect(a).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), "base64url")).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it("are stored as the hex SHA-256 of the whole key", () => {
    const secret = generateApiKeySecret();
    expect(hashApiKey(secret)).toBe(createHash("sha256").update(secret).digest("hex"));
    expect(isKeyHash(hashApiKey(secret))).toBe(true);
    expect(isKeyHash(secret)).toBe(false);
  });

  it("show a short prefix that does not give the key away", () => {
    const secret = generateApiKeySecret();
    expect(secret.startsWith(displayPrefixOf(secret))).toBe(true);
    expect(displayPrefixOf(secret).length).toBeLessThanOrEqual(10);
  });
});
