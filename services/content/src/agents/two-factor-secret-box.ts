// TOTP secrets at rest: AES-256-GCM under TOTP_ENCRYPTION_KEY, the same scheme as the webhooks
// service's signing secrets (services/webhooks/src/security/secret-box.ts): a fresh 96-bit nonce
// per value, stored as "v1.<base64 nonce|tag|ciphertext>". The user id is bound in as associated
// data, so a sealed secret copied onto another user's row does not open. Without a configured
// key (outside production) a fixed development key is used; it is public, so it protects nothing.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The key used when TOTP_ENCRYPTION_KEY is empty outside production: known to everyone. */
export const DEVELOPMENT_TOTP_KEY = createHash("sha256").update("support-content totp development key: never use in production").digest();

export function parseTotpEncryptionKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32 || key.toString("base64").replace(/=+$/, "") !== base64.trim().replace(/=+$/, "")) {
    throw new Error("must be base64 of exactly 32 bytes");
  }
  return key;
}

export interface TotpSecretBox {
  seal(plain: string, userId: string): string;
  /** Throws when the value was sealed under another key or for another user. */
  open(sealed: string, userId: string): string;
}

export function createTotpSecretBox(key: Buffer): TotpSecretBox {
  if (key.length !== 32) throw new Error("AES-256-GCM needs a 32-byte key");
  const aad = (userId: string) => Buffer.from(`user:${userId}`, "utf8");
  return {
    seal(plain, userId) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      cipher.setAAD(aad(userId));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed, userId) {
      const [version, data] = sealed.split(".", 2);
      if (version !== VERSION || data === undefined) throw new Error("unknown secret encoding");
      const raw = Buffer.from(data, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(aad(userId));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    },
  };
}

/** The box for a configured key, or the development key when it is empty (config refuses that in production). */
export function totpSecretBoxFor(configuredKey: string): TotpSecretBox {
  return createTotpSecretBox(configuredKey === "" ? DEVELOPMENT_TOTP_KEY : parseTotpEncryptionKey(configuredKey));
}
