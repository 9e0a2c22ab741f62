// Two-factor sign-in's pure rules: TOTP codes (RFC 6238: SHA-1, 6 digits, 30-second steps, what
// every authenticator app reads), the time step a code belongs to (a step used once is refused
// again), recovery codes (ten, one use each, kept only as hashes), and the short-lived challenge
// between the password and the code.
import { createHash, randomBytes, randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Codes of the step before and after the current one are accepted too (clock drift, typing time). */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** How long the challenge between a right password and the code lives. */
export const TWO_FACTOR_CHALLENGE_SECONDS = 300;

export type SessionScope = "full" | "two_factor_enrolment";

/** What a user's two-factor looks like at sign-in. */
export interface TwoFactorStatus {
  enabled: boolean;
  /** The company requires two-factor of everyone. */
  required: boolean;
}

/** A new TOTP secret: 160 random bits (RFC 4226's recommendation), base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secretBase32: string, label = "", issuer = ""): TOTP {
  return new TOTP({ issuer, label, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function otpauthUri(secretBase32: string, account: string, issuer: string): string {
  return totpOf(secretBase32, account, issuer).toString();
}

/** The code of a secret at a time (tests, and what an authenticator app shows). */
export function totpCode(secretBase32: string, at: Date): string {
  return totpOf(secretBase32).generate({ timestamp: at.getTime() });
}

/** The time step a right code belongs to (the current step ± TOTP_WINDOW), or undefined for a wrong code. */
export function matchingTotpStep(secretBase32: string, code: string, now: Date): number | undefined {
  if (!isTotpCode(code)) return undefined;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return undefined;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now.getTime() }) + delta;
}

export function isTotpCode(code: string): boolean {
  return new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code);
}

// No 0/O, 1/I/L: a code is copied by hand from paper.
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const RECOVERY_GROUPS = 3;
const RECOVERY_GROUP_LENGTH = 4;

/** Ten new recovery codes like `k7mq-3tzp-wx9a` (12 symbols of 31: about 59 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    Array.from({ length: RECOVERY_GROUPS }, () => Array.from({ length: RECOVERY_GROUP_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("")).join("-"),
  );
}

/** A recovery code as typed (any case, spaces or dashes anywhere) in its canonical form; undefined when it cannot be one. */
export function normaliseRecoveryCode(code: string): string | undefined {
  const compact = code.toLowerCase().replace(/[\s-]/g, "");
  if (compact.length !== RECOVERY_GROUPS * RECOVERY_GROUP_LENGTH || [...compact].some((c) => !RECOVERY_ALPHABET.includes(c))) return undefined;
  return compact;
}

/**
 * The stored form of a recovery code: SHA-256 of the user id and the code. The codes are random
 * (about 59 bits), so a slow hash would add nothing a brute force could not pay; the user id
 * keeps one table of guesses from serving every user.
 */
export function recoveryCodeHash(userId: string, normalisedCode: string): string {
  return createHash("sha256").update(`${userId}:${normalisedCode}`).digest("hex");
}

/** A new challenge token (256 bits): the gateway keeps it in a short-lived cookie. */
export const newChallengeToken = (): string => randomBytes(32).toString("base64url");

/** The scope of the session a password alone opens: full, or only enrolment when the company requires two-factor. */
export function scopeAfterPassword(status: TwoFactorStatus): SessionScope {
  return status.required && !status.enabled ? "two_factor_enrolment" : "full";
}

/**
 * The seam for single sign-on (not built yet): a user signed in through the company's OpenID
 * provider is excepted from the company's requirement when the provider asserts it checked a
 * second factor itself (e.g. `amr` containing "mfa" in the ID token); otherwise the same rule as
 * a password applies. SSO's callback is to call this, and open the session with openSession.
 */
export function scopeAfterSingleSignOn(status: TwoFactorStatus, providerAssertedMfa: boolean): SessionScope {
  return providerAssertedMfa ? "full" : scopeAfterPassword(status);
}
