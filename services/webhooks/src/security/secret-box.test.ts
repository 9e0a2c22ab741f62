import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, newSigningSecret, parseSecretsKey } from "./secret-box.ts";

describe("secret box", () => {
  it("seals with a fresh nonce and opens only under the same key", () => {
    const box = createSecretBox(randomBytes(32));
    const secret = newSigningSecret();
    const a = box.seal(secret);
    const b = box.seal(secret);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6, 20));
    expect(box.open(a)).toBe(secret);
    expect(() => createSecretBox(randomBytes(32)).open(a)).toThrow();
    const tampered = `${a.slice(0, -4)}${a.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    expect(() => box.open(tampered)).toThrow();
  });

  it("seals bytes the same way: no plaintext, opens only under the same key", () => {
    const box = createSecretBox(randomBytes(32));
    const secret = newSigningSecret();
    const plain = new TextEncoder().encode(`answer with ${secret}`);
    const sealed = box.sealBytes(plain);
    expect(Buffer.from(sealed).toString("latin1")).not.toContain(secret);
    expect(box.openBytes(sealed)).toEqual(plain);
    expect(() => createSecretBox(randomBytes(32)).openBytes(sealed)).toThrow();
  });

  it("makes Standard Webhooks secrets and reads 32-byte keys only", () => {
    expect(Buffer.from(newSigningSecret().slice("whsec_".length), "base64")).toHaveLength(32);
    const key = randomBytes(32).toString("base64");
    expect(parseSecretsKey(key)).toHaveLength(32);
    expect(() => parseSecretsKey(randomBytes(16).toString("base64"))).toThrow("32 bytes");
    expect(() => parseSecretsKey("not base64 at all!")).toThrow();
  });
});
