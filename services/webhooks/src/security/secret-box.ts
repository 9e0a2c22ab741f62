// Signing secrets at rest: AES-256-GCM under WEBHOOK_SECRETS_KEY, a fresh 96-bit nonce per
// value, stored as "v1.<base64 nonce|tag|ciphertext>". The version prefix leaves room for a
// key rotation later. Without a configured key (outside production) a fixed development key
// is used, so that secrets survive restarts; it is public, so it protects nothing.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The key used when WEBHOOK_SECRETS_KEY is empty outside production: known to everyone. */
export const DEVELOPMENT_KEY = createHash("sha256").update("support-webhooks development key: never use in production").digest();

export function parseSecretsKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32 || key.toString("base64").replace(/=+$/, "") !== base64.trim().replace(/=+$/, "")) {
    throw new Error("must be base64 of exactly 32 bytes");
  }
  return key;
}

/** The version byte of sealed bytes (the binary form of "v1"). */
const VERSION_BYTE = 1;

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** Binary form, for answers recorded for an Idempotency-Key that carry a secret. */
  sealBytes(plain: Uint8Array): Uint8Array;
  openBytes(sealed: Uint8Array): Uint8Array;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("AES-256-GCM needs a 32-byte key");
  const encrypt = (plain: Uint8Array): Buffer => {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]);
  };
  const decrypt = (raw: Buffer): Buffer => {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
  };
  return {
    seal(plain) {
      return `${VERSION}.${encrypt(Buffer.from(plain, "utf8")).toString("base64")}`;
    },
    open(sealed) {
      const [version, data] = sealed.split(".", 2);
      if (version !== VERSION || data === undefined) throw new Error("unknown secret encoding");
      return decrypt(Buffer.from(data, "base64")).toString("utf8");
    },
    sealBytes(plain) {
      return new Uint8Array(Buffer.concat([Buffer.of(VERSION_BYTE), encrypt(plain)]));
    },
    openBytes(sealed) {
      if (sealed[0] !== VERSION_BYTE) throw new Error("unknown secret encoding");
      return new Uint8Array(decrypt(Buffer.from(sealed).subarray(1)));
    },
  };
}

/** A new signing secret: "whsec_" and base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
