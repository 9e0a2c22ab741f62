// Throttling of failed sign-ins, per account (the email given, known or not) and per client
// address: past `maxFailures` within the window the key is locked for `lockMs`, and every
// attempt on a locked key is refused before the password is checked. A success clears the
// account's count (not the address's: one address trying many accounts stays throttled).

export interface ThrottleRule {
  maxFailures: number;
  windowMs: number;
  lockMs: number;
}

export interface FailureCount {
  failures: number;
  windowStartedAt: Date;
  lockedUntil: Date | null;
}

export const accountKey = (email: string): string => `account:${email.trim().toLowerCase()}`;
export const addressKey = (address: string): string => `address:${address}`;

/** Seconds until the key may try again; 0 when it is not locked. */
export function lockedForSeconds(count: FailureCount | undefined, now: Date): number {
  if (!count?.lockedUntil || count.lockedUntil <= now) return 0;
  return Math.ceil((count.lockedUntil.getTime() - now.getTime()) / 1000);
}

/** The count after one more failure now. */
export function afterFailure(count: FailureCount | undefined, now: Date, rule: ThrottleRule): FailureCount {
  const fresh = !count || now.getTime() - count.windowStartedAt.getTime() >= rule.windowMs || (count.lockedUntil !== null && count.lockedUntil <= now);
  const failures = fresh ? 1 : count.failures + 1;
  const windowStartedAt = fresh ? now : count.windowStartedAt;
  return { failures, windowStartedAt, lockedUntil: failures >= rule.maxFailures ? new Date(now.getTime() + rule.lockMs) : null };
}
