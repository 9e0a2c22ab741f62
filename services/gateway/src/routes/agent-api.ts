// /agent-api: the support application's door. Users of a company (agents, admins) sign in with
// email and password (content's AgentAccessService checks them and keeps the sessions), get a
// session cookie, and sign out. Per route: no Authorization header (401: this side never takes
// an API key) -> same-origin check on POSTs (403) -> sign-in: per-address attempt limit (429)
// and JSON body; the others: the session (401) and, on POSTs, the CSRF token (403) ->
// OpenAPI validation -> handler. No CORS: the application is served from the same origin.
import type { AppError } from "@support/errors";
import { connectToAppError } from "@support/rpc";
import type { Context, Middleware } from "koa";
import { appOriginOf, sessionClearCookie, sessionCookieFor, sessionSetCookie, sessionTokenOf } from "../agent-api/cookie.ts";
import { checkCsrfToken, checkOrigin } from "../agent-api/csrf.ts";
import {
  createAgentSessionAuth, hashSessionToken, rememberSession, toAgentSessionView, type AgentSessionCache, type AgentSessionState, type AgentSessionView,
} from "../agent-api/sessions.ts";
import type { AgentAccessClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { HttpProblem } from "../middleware/errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { clientAddress, type PublicRateLimiter, type TrustProxy } from "../middleware/rate-limit.ts";
import { isoTimestamp } from "../mappings/timestamps.ts";
import type { Schemas } from "../openapi/types.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentApiRoutesDeps {
  agentAccess: AgentAccessClient;
  sessions: AgentSessionCache;
  config: Pick<GatewayConfig, "SUPPORT_APP_URL" | "BODY_LIMIT_BYTES">;
  trustProxy: TrustProxy;
  /** The per-address limit of sign-in attempts (on the shared counters); none: unlimited. */
  signInLimiter?: PublicRateLimiter | undefined;
}

/** The one answer for a wrong email, a wrong password, an inactive user: nothing tells them apart. */
export const SIGN_IN_FAILED_MESSAGE = "The email or password is wrong";

function authorizationRefused(): HttpProblem {
  return new HttpProblem(
    401,
    "unauthenticated",
    "/agent-api does not take an Authorization header (API keys and session codes are for the public API and /player-api): sign in with POST /agent-api/sign-in and send its session cookie",
  );
}

/** 429 with Retry-After for a limit content reports (a sign-in lockout: details.payload.retryAfterSeconds). */
function tooManyAttempts(error: AppError, message: string): HttpProblem {
  const wait = Number(error.details?.payload?.retryAfterSeconds);
  const seconds = Number.isFinite(wait) && wait >= 1 ? Math.ceil(wait) : 60;
  return new HttpProblem(429, "rate_limited", `${message}; retry in ${seconds} seconds`, { "Retry-After": String(seconds) });
}

/** Runs a call to content, its rate limits answered as a 429 with Retry-After. */
async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const appError = connectToAppError(error);
    if (appError.code === "rate_limited") throw tooManyAttempts(appError, "Too many requests");
    throw error;
  }
}

function toAgentMe(session: AgentSessionView): Schemas["AgentMe"] {
  const { user } = session;
  return {
    user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, role: user.role as Schemas["AgentMe"]["user"]["role"] },
    companyId: session.companyId,
    gameIds: session.gameIds,
    csrfToken: session.csrfToken,
    session: {
      createdAt: new Date(session.createdAt).toISOString(),
      idleExpiresAt: new Date(session.idleExpiresAt).toISOString(),
      expiresAt: new Date(session.expiresAt).toISOString(),
    },
  };
}

export function registerAgentApiRoutes(api: ApiRoutes, deps: AgentApiRoutesDeps): void {
  const { agentAccess, sessions } = deps;
  const appOrigin = (ctx: Context) => appOriginOf(deps.config.SUPPORT_APP_URL, ctx.get("Host") || undefined);
  const cookieOf = (ctx: Context) => sessionCookieFor(appOrigin(ctx));
  const addressOf = (ctx: Context) => clientAddress(ctx.req.socket.remoteAddress, ctx.headers["x-forwarded-for"], deps.trustProxy);

  const noAuthorization: Middleware = (ctx, next) => {
    if (ctx.headers.authorization !== undefined) throw authorizationRefused();
    return next();
  };
  const sameOrigin: Middleware = (ctx, next) => {
    checkOrigin(ctx.get("Origin") || undefined, appOrigin(ctx));
    return next();
  };
  const resolveSession = createAgentSessionAuth(agentAccess, sessions, (ctx) => sessionTokenOf(ctx.headers.cookie, cookieOf(ctx)));
  const session: Middleware = (ctx, next) => call(() => resolveSession(ctx, next));
  const csrfToken: Middleware = (ctx, next) => {
    checkCsrfToken(ctx.headers["x-csrf-token"], (ctx.state as AgentSessionState).agentSession.csrfToken);
    return next();
  };
  const signInLimit: Middleware[] = deps.signInLimiter ? [deps.signInLimiter.middleware(() => undefined)] : [];

  api.operation(
    "signInAgent",
    async (ctx) => {
      const { email, password } = ctx.state.validated.body;
      let answer;
      try {
        answer = await agentAccess.signIn({ email, password, clientAddress: addressOf(ctx), userAgent: ctx.get("User-Agent").slice(0, 512) });
      } catch (error) {
        const appError = connectToAppError(error);
        if (appError.code === "unauthenticated") throw new HttpProblem(401, "unauthenticated", SIGN_IN_FAILED_MESSAGE);
        if (appError.code === "rate_limited") throw tooManyAttempts(appError, "Sign-in is locked after too many failed attempts");
        throw error;
      }
      if (!answer.session || !answer.sessionToken) throw new Error("content's SignIn returned no session");
      const view = toAgentSessionView(answer.session, Date.now());
      const cookie = cookieOf(ctx);
      // A session the browser still held is ended, not left to run out: one session per sign-in.
      const previous = sessionTokenOf(ctx.headers.cookie, cookie);
      if (previous !== undefined && previous !== answer.sessionToken) {
        sessions.evict(hashSessionToken(previous));
        await agentAccess.signOut({ sessionToken: previous, clientAddress: addressOf(ctx) }).catch(() => undefined);
      }
      await rememberSession(sessions, answer.sessionToken, view);
      ctx.append("Set-Cookie", sessionSetCookie(cookie, answer.sessionToken, (view.expiresAt - Date.now()) / 1000));
      respond(ctx, 204, "");
    },
    { before: [noAuthorization, sameOrigin, ...signInLimit, jsonBody(deps.config.BODY_LIMIT_BYTES)] },
  );

  api.operation<"signOutAgent", AgentSessionState>(
    "signOutAgent",
    async (ctx) => {
      const { agentSession, agentSessionToken } = ctx.state;
      await call(() => agentAccess.signOut({ sessionToken: agentSessionToken, clientAddress: addressOf(ctx) }));
      // This replica at once; the others when content's content.agent_sessions.ended arrives.
      sessions.invalidate(agentSession.id);
      sessions.evict(hashSessionToken(agentSessionToken));
      ctx.append("Set-Cookie", sessionClearCookie(cookieOf(ctx)));
      respond(ctx, 204, "");
    },
    { before: [noAuthorization, sameOrigin, session, csrfToken] },
  );

  api.operation<"signOutAgentEverywhere", AgentSessionState>(
    "signOutAgentEverywhere",
    async (ctx) => {
      const { agentSession, agentSessionToken } = ctx.state;
      await call(() => agentAccess.signOutEverywhere({ sessionToken: agentSessionToken, clientAddress: addressOf(ctx) }));
      sessions.invalidate(agentSession.id);
      sessions.evict(hashSessionToken(agentSessionToken));
      ctx.append("Set-Cookie", sessionClearCookie(cookieOf(ctx)));
      respond(ctx, 204, "");
    },
    { before: [noAuthorization, sameOrigin, session, csrfToken] },
  );

  // Invitation and password-reset links (docs/agents.md): none needs a session; each needs the
  // application's Origin and counts on sign-in's per-address limit.
  const linkGuards = [noAuthorization, sameOrigin, ...signInLimit, jsonBody(deps.config.BODY_LIMIT_BYTES)];

  api.operation(
    "requestAgentPasswordReset",
    async (ctx) => {
      await call(() => agentAccess.requestPasswordReset({ email: ctx.state.validated.body.email, clientAddress: addressOf(ctx) }));
      respond(ctx, 202, "");
    },
    { before: linkGuards },
  );

  api.operation(
    "inspectAgentLink",
    async (ctx) => {
      const link = await call(() => agentAccess.inspectLink({ token: ctx.state.validated.body.token }));
      respond(ctx, 200, {
        purpose: link.purpose as Schemas["AgentLink"]["purpose"],
        email: link.email,
        name: link.name,
        expiresAt: isoTimestamp(link.expiresAt, "content", "link expiresAt"),
      });
    },
    { before: linkGuards },
  );

  api.operation(
    "redeemAgentLink",
    async (ctx) => {
      const { token, password } = ctx.state.validated.body;
      await call(() => agentAccess.redeemLink({ token, password, clientAddress: addressOf(ctx) }));
      respond(ctx, 204, "");
    },
    { before: linkGuards },
  );

  api.operation<"getAgentMe", AgentSessionState>(
    "getAgentMe",
    (ctx) => {
      respond(ctx, 200, toAgentMe(ctx.state.agentSession));
    },
    { before: [noAuthorization, session] },
  );
}
