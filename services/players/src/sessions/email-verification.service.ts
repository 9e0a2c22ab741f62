// Use cases of email verification on the player side: send a code to the session's email, and
// accept it back. A code is stored (hashed) and its mail sent in one transaction, so a mail that
// cannot be sent leaves nothing counted; an accepted code marks the session and publishes
// players.session.verified in the same transaction.
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { validationError } from "@support/errors";
import { emailNotConfigured, type Mailer } from "@support/mail";
import {
  checkCanSendCode, checkEnteredCode, createEmailCode, emailCodeMessage, hashEmailCode, maskEmail, type EmailVerificationSettings,
} from "./email-verification.ts";
import { countWrongAttempt, lockPendingCode, markEmailVerified, storeCode } from "./email-verification.repository.ts";
import type { SessionContext } from "./session.service.ts";
import { getSupportSession } from "./session.service.ts";
import { sessionEventTypes, sessionVerifiedData, type SupportSession } from "./session.ts";

export interface EmailVerificationContext extends SessionContext {
  mailer: Mailer;
  emailVerification: EmailVerificationSettings;
}

export interface SentCode {
  maskedEmail: string;
  expiresAt: Date;
  sendsLeft: number;
}

export async function startEmailVerification(ctx: EmailVerificationContext, sessionCode: string, now: Date = new Date()): Promise<SentCode> {
  const session = await getSupportSession(ctx.db, sessionCode);
  const settings = ctx.emailVerification;
  // Checked before anything is read or written: the answer does not depend on the session.
  if (!ctx.mailer.configured) throw emailNotConfigured();
  const gameName = await ctx.games.gameName(session.companyId, session.gameId);
  return ctx.db.transaction().execute(async (trx) => {
    const pending = await lockPendingCode(trx, session.id);
    checkCanSendCode(session, pending, settings, now);
    const email = session.metadata.player!.email!;
    const code = createEmailCode();
    const expiresAt = await storeCode(trx, {
      sessionId: session.id,
      emailNormalized: email.toLowerCase(),
      codeHash: hashEmailCode(session.id, code),
      ttlSeconds: settings.codeTtlSeconds,
    });
    await ctx.mailer.send({ to: email, ...emailCodeMessage({ code, gameName, ttlMinutes: Math.round(settings.codeTtlSeconds / 60) }) });
    return { maskedEmail: maskEmail(email), expiresAt, sendsLeft: Math.max(0, settings.maxSends - ((pending?.sends ?? 0) + 1)) };
  });
}

export async function confirmEmailVerification(
  ctx: EmailVerificationContext,
  sessionCode: string,
  enteredCode: string,
  now: Date = new Date(),
): Promise<SupportSession> {
  const session = await getSupportSession(ctx.db, sessionCode);
  const settings = ctx.emailVerification;
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const pending = await lockPendingCode(trx, session.id);
    const verdict = checkEnteredCode(pending, session, enteredCode, settings, now);
    if (verdict === "wrong") {
      await countWrongAttempt(trx, session.id);
      return { verified: false as const, attemptsLeft: Math.max(0, settings.maxAttempts - (pending!.attempts + 1)) };
    }
    const emailVerifiedAt = await markEmailVerified(trx, session.id);
    const verified = { ...session, emailVerifiedAt };
    await writeEvents(trx, [newEvent(sessionEventTypes.verified, session.companyId, sessionVerifiedData(session, emailVerifiedAt))]);
    return { verified: true as const, session: verified };
  });
  if (!outcome.verified) {
    throw validationError(
      [{ path: "/code", message: outcome.attemptsLeft > 0 ? `is not the code that was sent (${outcome.attemptsLeft} attempts left)` : "is not the code that was sent; ask for a new one" }],
      "Wrong code",
    );
  }
  return outcome.session;
}
