// The support application's sessions as a gateway replica sees them: the cookie's token is
// resolved with content's GetAgentSession (which also restarts the idle timeout), and the
// answer is kept briefly, keyed by the token's SHA-256 (never the token itself). Content
// publishes content.agent_sessions.ended whenever sessions end (sign-out, sign-out everywhere,
// a password change, a deactivation); every replica marks the named session ids
// (events/agent-sessions-ended.consumer.ts), and a cached copy read before the mark is read
// again, so an ended session is refused at once everywhere.
import { createHash } from "node:crypto";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { AgentSession as AgentSessionMessage } from "@support/proto";
import { connectToAppError } from "@support/rpc";
import type { Context, Middleware } from "koa";
import { LRUCache } from "lru-cache";
import { CoalescingCache } from "../cache.ts";
import type { AgentAccessClient } from "../clients.ts";
import { HttpProblem } from "../middleware/errors.ts";

/** A live session of the support application (never its token). Times in ms since the epoch. */
export interface AgentSessionView {
  id: string;
  /** skills: names of the company's skill tags, for routing; available, languages, capacity: routing's settings of the user. */
  user: { id: string; name: string; displayName: string; email: string; role: string; skills: string[]; available: boolean; languages: string[]; capacity: number };
  companyId: string;
  gameIds: string[];
  csrfToken: string;
  createdAt: number;
  idleExpiresAt: number;
  expiresAt: number;
  /** "full", or "two_factor_enrolment": the company requires two-factor and the user must enrol first. */
  scope: string;
  twoFactor: { enabled: boolean; required: boolean };
  /** When this copy was read from content: an invalidation at or after it makes it stale. */
  loadedAt: number;
}

/** Cached answer for a token content does not know (or whose session ended). */
const UNKNOWN_SESSION: AgentSessionView = Object.freeze({
  id: "", user: { id: "", name: "", displayName: "", email: "", role: "", skills: [], available: false, languages: [], capacity: 0 }, companyId: "", gameIds: [], csrfToken: "", createdAt: 0, idleExpiresAt: 0, expiresAt: 0, scope: "", twoFactor: { enabled: false, required: false }, loadedAt: 0,
});

export const AGENT_SESSION_CACHE_TTL_MS = 10_000;
export const AGENT_SESSION_NEGATIVE_CACHE_TTL_MS = 2_000;
/** How long a session id stays marked as ended: longer than any cached copy of it lives. */
const INVALIDATION_MEMORY_MS = 60_000;

export class AgentSessionCache extends CoalescingCache<AgentSessionView> {
  readonly #ended = new LRUCache<string, number>({ max: 100_000, ttl: INVALIDATION_MEMORY_MS });

  /** The session ended now: copies read before now are not used again. */
  invalidate(sessionId: string, at: number = Date.now()): void {
    this.#ended.set(sessionId, at);
  }

  isStale(session: AgentSessionView): boolean {
    const endedAt = this.#ended.get(session.id);
    return endedAt !== undefined && endedAt >= session.loadedAt;
  }
}

export function createAgentSessionCache(options: { ttlMs?: number; negativeTtlMs?: number; max?: number } = {}): AgentSessionCache {
  const ttlMs = options.ttlMs ?? AGENT_SESSION_CACHE_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? AGENT_SESSION_NEGATIVE_CACHE_TTL_MS;
  return new AgentSessionCache({
    max: options.max ?? 20_000,
    ttlMs,
    // Never kept past the session's absolute end, nor past half of what is left of its idle
    // time: a session used only through this copy must reach content while its idle clock still
    // runs, so that the use moves the clock on (content moves it when it is read).
    ttlOf: (session) =>
      session === UNKNOWN_SESSION ? negativeTtlMs : Math.max(1, Math.min(ttlMs, (session.idleExpiresAt - Date.now()) / 2, session.expiresAt - Date.now())),
  });
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function toAgentSessionView(session: AgentSessionMessage, loadedAt: number): AgentSessionView {
  const user = session.user;
  if (!user || !session.createdAt || !session.idleExpiresAt || !session.expiresAt) throw new Error("content returned an incomplete agent session");
  return {
    id: session.id,
    user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, role: user.role, skills: [...user.skills], available: user.available, languages: [...user.languages], capacity: user.capacity },
    companyId: user.companyId,
    gameIds: [...user.gameIds],
    csrfToken: session.csrfToken,
    createdAt: timestampMs(session.createdAt),
    idleExpiresAt: timestampMs(session.idleExpiresAt),
    expiresAt: timestampMs(session.expiresAt),
    scope: session.scope || "full",
    twoFactor: { enabled: session.twoFactorEnabled, required: session.twoFactorRequired },
    loadedAt,
  };
}

export function signInRequired(): HttpProblem {
  return new HttpProblem(401, "unauthenticated", "Sign in first: there is no live session (the cookie is missing, or its session has ended)");
}

/** What the session check adds to an /agent-api request's state. */
export interface AgentSessionState {
  agentSession: AgentSessionView;
  /** The cookie's token, for the RPCs that end the session. */
  agentSessionToken: string;
}

/**
 * Koa middleware: resolves the token `tokenOf` finds into `ctx.state.agentSession`, or throws
 * the 401. Only "no such live session" is cached as an answer; an outage propagates (503).
 */
export function createAgentSessionAuth(agentAccess: AgentAccessClient, cache: AgentSessionCache, tokenOf: (ctx: Context) => string | undefined): Middleware {
  const load = async (token: string): Promise<AgentSessionView> => {
    const loadedAt = Date.now();
    try {
      const { session } = await agentAccess.getAgentSession({ sessionToken: token });
      return session ? toAgentSessionView(session, loadedAt) : UNKNOWN_SESSION;
    } catch (error) {
      const code = connectToAppError(error).code;
      if (code === "unauthenticated" || code === "not_found" || code === "invalid_argument") return UNKNOWN_SESSION;
      throw error;
    }
  };
  return async (ctx, next) => {
    const token = tokenOf(ctx);
    if (token === undefined) throw signInRequired();
    const key = hashSessionToken(token);
    const found = cache.get(key, () => load(token));
    let session = found instanceof Promise ? await found : found;
    if (session !== UNKNOWN_SESSION && cache.isStale(session)) {
      cache.evict(key);
      const reloaded = cache.get(key, () => load(token));
      session = reloaded instanceof Promise ? await reloaded : reloaded;
    }
    const now = Date.now();
    if (session === UNKNOWN_SESSION || session.expiresAt <= now || session.idleExpiresAt <= now) throw signInRequired();
    const state = ctx.state as AgentSessionState;
    state.agentSession = session;
    state.agentSessionToken = token;
    await next();
  };
}

/** Keeps the session a sign-in just opened, so the request that follows costs no RPC. */
export async function rememberSession(cache: AgentSessionCache, token: string, session: AgentSessionView): Promise<void> {
  const key = hashSessionToken(token);
  cache.evict(key);
  await cache.get(key, () => Promise.resolve(session));
}

/** The scope of a session that serves only enrolling in two-factor (the company requires it). */
export const ENROLMENT_ONLY_SCOPE = "two_factor_enrolment";

/**
 * Koa middleware after the session check, for every /agent-api route but the few a session
 * limited to enrolment may use (me, sign-out, the enrolment itself): such a session is refused
 * with a 403 that says to enrol first.
 */
export const requireFullSession: Middleware = (ctx, next) => {
  if ((ctx.state as AgentSessionState).agentSession.scope === ENROLMENT_ONLY_SCOPE) {
    throw new HttpProblem(403, "permission_denied", "Your company requires two-factor sign-in: enrol first (POST /agent-api/two-factor/enrolment)");
  }
  return next();
};

/**
 * Whether the session's user may see tickets of this game: one of the session's games (an
 * admin's are every live game of the company). The agent API's one scope rule, within the
 * company every call already names.
 */
export function seesGame(session: Pick<AgentSessionView, "gameIds">, gameId: string): boolean {
  return session.gameIds.includes(gameId.toLowerCase());
}
