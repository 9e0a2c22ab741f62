// A session of the support application: a random token (the cookie's value, shown once, stored
// only as its SHA-256), a CSRF token, and two clocks: idle (each use moves it) and absolute.
import { createHash, randomBytes } from "node:crypto";
import type { SessionScope } from "./two-factor.ts";

export interface SessionLimits {
  /** A session unused this long ends (AGENT_SESSION_IDLE_SECONDS, default 12 h). */
  idleMs: number;
  /** A session ends this long after sign-in whatever happens (AGENT_SESSION_MAX_SECONDS, default 7 d). */
  maxMs: number;
}

export interface AgentSessionRecord {
  id: string;
  userId: string;
  companyId: string;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  idleExpiresAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  /** "full", or "two_factor_enrolment": a session that serves only enrolling in two-factor. */
  scope: SessionScope;
}

export type SessionEndReason = "signed_out" | "signed_out_everywhere" | "password_changed" | "deactivated" | "two_factor_enabled" | "two_factor_reset";

/** 256 random bits, URL-safe. */
export const newToken = (): string => randomBytes(32).toString("base64url");

export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/** The clocks of a session opened now. */
export function openingClocks(now: Date, limits: SessionLimits): { idleExpiresAt: Date; expiresAt: Date } {
  const expiresAt = new Date(now.getTime() + limits.maxMs);
  return { idleExpiresAt: new Date(Math.min(now.getTime() + limits.idleMs, expiresAt.getTime())), expiresAt };
}

export function isLive(session: AgentSessionRecord, now: Date): boolean {
  return session.endedAt === null && session.idleExpiresAt > now && session.expiresAt > now;
}

/**
 * The idle clock after a use now, or undefined when it need not be written yet: moving it at
 * most once a minute (or a tenth of the idle timeout, when that is shorter) keeps a busy
 * agent's requests from writing a row each.
 */
export function touchedIdleExpiry(session: AgentSessionRecord, now: Date, limits: SessionLimits): Date | undefined {
  if (now.getTime() - session.lastSeenAt.getTime() < Math.min(60_000, limits.idleMs / 10)) return undefined;
  return new Date(Math.min(now.getTime() + limits.idleMs, session.expiresAt.getTime()));
}
