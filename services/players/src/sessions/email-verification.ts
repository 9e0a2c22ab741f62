// Proving a session's email address with a one-time code (the player side's "verify your
// email"): the code, how it is stored, how long it lives and how often it may be sent or tried.
// Rules only: no SQL, no SMTP, no RPC.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { AppError, failedPrecondition, validationError } from "@support/errors";
import type { SupportSession } from "./session.ts";

export interface EmailVerificationSettings {
  /** How long a code can be entered (10 minutes). */
  codeTtlSeconds: number;
  /** Wrong entries a code allows; then a new code must be sent. */
  maxAttempts: number;
  /** Codes one session may have sent in all (it lives 24 hours). */
  maxSends: number;
  /** Least time between two codes for one session. */
  resendAfterSeconds: number;
}

export const DEFAULT_EMAIL_VERIFICATION_SETTINGS: EmailVerificationSettings = {
  codeTtlSeconds: 600,
  maxAttempts: 5,
  maxSends: 5,
  resendAfterSeconds: 30,
};

/** The code waiting to be entered for a session, as stored. */
export interface PendingEmailCode {
  sessionId: string;
  emailNormalized: string;
  codeHash: string;
  expiresAt: Date;
  attempts: number;
  sends: number;
  lastSentAt: Date;
}

export const EMAIL_CODE_DIGITS = 6;

/** A new code: 6 decimal digits from the system's CSPRNG (easy to type from a phone). */
export function createEmailCode(): string {
  return String(randomInt(0, 10 ** EMAIL_CODE_DIGITS)).padStart(EMAIL_CODE_DIGITS, "0");
}

/**
 * What is stored of a code: SHA-256 over the session id and the code, never the code. The
 * session id keeps one hash from matching another session's code; the short lifetime and
 * the attempt limit are what protect a code this short.
 */
export function hashEmailCode(sessionId: string, code: string): string {
  return createHash("sha256").update(`${sessionId}:${code}`, "utf8").digest("hex");
}

/** An entered code as it is compared: spaces and dashes (as people type codes) are ignored. */
export function cleanEnteredCode(entered: string): string {
  return entered.replace(/[\s-]/g, "");
}

/** Whether text can be a code at all; anything else is refused without counting as a try. */
export function isWellFormedCode(entered: string): boolean {
  return new RegExp(`^\\d{${EMAIL_CODE_DIGITS}}$`).test(cleanEnteredCode(entered));
}

/** Whether an entered code is the stored one (constant time; spaces and dashes are ignored). */
export function codeMatches(pending: Pick<PendingEmailCode, "sessionId" | "codeHash">, entered: string): boolean {
  const cleaned = cleanEnteredCode(entered);
  if (!isWellFormedCode(cleaned)) return false;
  const a = Buffer.from(hashEmailCode(pending.sessionId, cleaned), "hex");
  const b = Buffer.from(pending.codeHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `player@example.com` shown as `p****r@example.com`, so the page can say where the code went. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "***";
  const local = email.slice(0, at);
  const shown = local.length <= 2 ? `${local[0]}*` : `${local[0]}${"*".repeat(Math.min(local.length - 2, 6))}${local.at(-1)}`;
  return `${shown}${email.slice(at)}`;
}

/** Whether the session's email is proven: by the game's signature, or by a code. */
export function emailIsVerified(session: Pick<SupportSession, "verification" | "metadata" | "emailVerifiedAt">): boolean {
  if (session.metadata.player?.email === undefined) return false;
  return session.emailVerifiedAt !== null || session.verification === "verified";
}

/**
 * A code may be sent when the session names an email that is not proven yet, fewer than
 * maxSends codes were sent, and the last one is older than resendAfterSeconds.
 */
export function checkCanSendCode(
  session: Pick<SupportSession, "verification" | "metadata" | "emailVerifiedAt">,
  pending: Pick<PendingEmailCode, "sends" | "lastSentAt"> | undefined,
  settings: EmailVerificationSettings,
  now: Date,
): void {
  if (session.metadata.player?.email === undefined) {
    throw validationError([{ path: "/player/email", message: "the session names no email address to verify" }], "This session has no email address");
  }
  if (emailIsVerified(session)) throw failedPrecondition("The session's email address is verified already", { type: "ALREADY_VERIFIED" });
  if (pending === undefined) return;
  if (pending.sends >= settings.maxSends) {
    throw new AppError("rate_limited", `At most ${settings.maxSends} codes can be sent for one session; open support again from the game for a new one`, {
      type: "EMAIL_CODE_LIMIT",
    });
  }
  const waitSeconds = Math.ceil((pending.lastSentAt.getTime() + settings.resendAfterSeconds * 1000 - now.getTime()) / 1000);
  if (waitSeconds > 0) {
    throw new AppError("rate_limited", `A code was sent just now; a new one can be sent in ${waitSeconds} seconds`, {
      type: "EMAIL_CODE_RESEND",
      payload: { retryAfterSeconds: waitSeconds },
    });
  }
}

/**
 * Why an entered code is refused, or nothing when it is accepted. Text that cannot be a code is
 * a plain validation error; only a well-formed code counts as a try ("wrong").
 */
export function checkEnteredCode(
  pending: PendingEmailCode | undefined,
  session: Pick<SupportSession, "id" | "metadata">,
  entered: string,
  settings: EmailVerificationSettings,
  now: Date,
): "accepted" | "wrong" {
  if (!isWellFormedCode(entered)) {
    throw validationError([{ path: "/code", message: `must be the ${EMAIL_CODE_DIGITS}-digit code from the email` }]);
  }
  const sessionEmail = session.metadata.player?.email?.toLowerCase();
  if (pending === undefined || pending.expiresAt <= now || pending.emailNormalized !== sessionEmail) {
    throw validationError([{ path: "/code", message: "no valid code was sent for this session, or it expired: ask for a new one" }], "The code has expired");
  }
  if (pending.attempts >= settings.maxAttempts) {
    throw new AppError("rate_limited", "Too many wrong codes: ask for a new one", { type: "EMAIL_CODE_ATTEMPTS" });
  }
  return codeMatches(pending, entered) ? "accepted" : "wrong";
}

/** The mail carrying a code (plain text; the game's name says who sends it). */
export function emailCodeMessage(input: { code: string; gameName: string; ttlMinutes: number }): { subject: string; text: string } {
  return {
    subject: `${input.code} is your ${input.gameName} support code`,
    text: [
      `Your code to see your ${input.gameName} support conversations: ${input.code}`,
      "",
      `Enter it on the support page within ${input.ttlMinutes} minutes.`,
      "If you did not ask for it, ignore this message: nobody can use your conversations without the code.",
    ].join("\n"),
  };
}
