// /agent-api: the support application's door. Users of a company (agents, admins) sign in with
// email and password (content's AgentAccessService checks them and keeps the sessions), get a
// session cookie, and sign out. Per route: no Authorization header (401: this side never takes
// an API key) -> same-origin check on POSTs (403) -> sign-in: per-address attempt limit (429)
// and JSON body; the others: the session (401) and, on POSTs, the CSRF token (403) ->
// OpenAPI validation -> handler. No CORS: the application is served from the same origin.
// Two-factor: a sign-in of a user with it on answers a challenge (a short-lived cookie), which
// POST /agent-api/sign-in/totp completes with a code; enrolment gives a QR code drawn here.
// Single sign-on: GET /agent-api/sso/start sends the browser to the company's OpenID provider
// (content builds the request and keeps the attempt; a short-lived cookie binds it to the
// browser), GET /agent-api/sso/callback hands the provider's answer to content and lands the
// browser in the application with a session, or on its sign-in page with an error code.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { validationError, type AppError } from "@support/errors";
import type { AgentSession as AgentSessionMessage } from "@support/proto";
import { connectToAppError } from "@support/rpc";
import type { Context, Middleware } from "koa";
import { appOriginOf, sessionClearCookie, sessionCookieFor, sessionSetCookie, sessionTokenOf } from "../agent-api/cookie.ts";
import { checkCsrfToken, checkOrigin } from "../agent-api/csrf.ts";
import {
  appAddressOf, appPageUrl, signInPageUrl, SSO_CALLBACK_PATH, ssoAttemptOf, ssoClearCookie, ssoCookieFor, ssoErrorCodeOf, ssoSetCookie,
} from "../agent-api/single-sign-on.ts";
import { challengeClearCookie, challengeCookieFor, challengeOf, challengeSetCookie, qrCodeDataUrl } from "../agent-api/two-factor.ts";
import {
  createAgentSessionAuth, hashSessionToken, rememberSession, requireFullSession, toAgentSessionView, type AgentSessionCache, type AgentSessionState, type AgentSessionView,
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
export const TWO_FACTOR_CHALLENGE_MISSING = "No sign-in is waiting for a code (its cookie is missing or expired): sign in again with the email and password";

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
    user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, role: user.role as Schemas["AgentMe"]["user"]["role"], skills: [...user.skills],
      available: user.available, languages: [...user.languages], capacity: user.capacity,
    },
    companyId: session.companyId,
    gameIds: session.gameIds,
    csrfToken: session.csrfToken,
    session: {
      createdAt: new Date(session.createdAt).toISOString(),
      idleExpiresAt: new Date(session.idleExpiresAt).toISOString(),
      expiresAt: new Date(session.expiresAt).toISOString(),
      scope: session.scope as Schemas["AgentMe"]["session"]["scope"],
    },
    twoFactor: { ...session.twoFactor },
  };
}

/** The checks other /agent-api routes run before their handler, in order. */
export interface AgentApiGuards {
  /** A read: no Authorization header, a live full session. */
  read: Middleware[];
  /** A state-changing request: no Authorization header, the application's Origin, a live full session, its CSRF token. */
  write: Middleware[];
  /** The address the request came from (TRUST_PROXY applied), for the audit log. */
  clientAddress: (ctx: Context) => string;
}

export function registerAgentApiRoutes(api: ApiRoutes, deps: AgentApiRoutesDeps): AgentApiGuards {
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

  /**
   * Sets the cookie of a session content just opened and keeps the session, so the request that
   * follows costs no RPC. A session the browser still held is ended, not left to run out: one
   * session per sign-in.
   */
  const startSession = async (ctx: Context, token: string, session: AgentSessionMessage | undefined, options = { endPrevious: true }) => {
    if (!session || !token) throw new Error("content opened no session");
    const view = toAgentSessionView(session, Date.now());
    const cookie = cookieOf(ctx);
    const previous = sessionTokenOf(ctx.headers.cookie, cookie);
    if (options.endPrevious && previous !== undefined && previous !== token) {
      sessions.evict(hashSessionToken(previous));
      await agentAccess.signOut({ sessionToken: previous, clientAddress: addressOf(ctx) }).catch(() => undefined);
    }
    await rememberSession(sessions, token, view);
    ctx.append("Set-Cookie", sessionSetCookie(cookie, token, (view.expiresAt - Date.now()) / 1000));
  };

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
      if (answer.twoFactorChallenge && answer.twoFactorChallengeExpiresAt) {
        // No session yet: the challenge waits in its own short-lived cookie for the code.
        const expiresAt = timestampMs(answer.twoFactorChallengeExpiresAt);
        ctx.append("Set-Cookie", challengeSetCookie(challengeCookieFor(cookieOf(ctx)), answer.twoFactorChallenge, (expiresAt - Date.now()) / 1000));
        respond(ctx, 200, { twoFactorRequired: true, expiresAt: new Date(expiresAt).toISOString() });
        return;
      }
      await startSession(ctx, answer.sessionToken, answer.session);
      respond(ctx, 204, "");
    },
    { before: [noAuthorization, sameOrigin, ...signInLimit, jsonBody(deps.config.BODY_LIMIT_BYTES)] },
  );

  api.operation(
    "completeAgentTwoFactorSignIn",
    async (ctx) => {
      const challengeCookie = challengeCookieFor(cookieOf(ctx));
      const challenge = challengeOf(ctx.headers.cookie, challengeCookie);
      if (challenge === undefined) throw new HttpProblem(401, "unauthenticated", TWO_FACTOR_CHALLENGE_MISSING);
      let answer;
      try {
        answer = await agentAccess.completeTwoFactorSignIn({
          challenge, code: ctx.state.validated.body.code, clientAddress: addressOf(ctx), userAgent: ctx.get("User-Agent").slice(0, 512),
        });
      } catch (error) {
        const appError = connectToAppError(error);
        // Content's message says which: a wrong code, or a challenge that is gone.
        if (appError.code === "unauthenticated") throw new HttpProblem(401, "unauthenticated", appError.message);
        if (appError.code === "rate_limited") throw tooManyAttempts(appError, "Sign-in is locked after too many failed attempts");
        throw error;
      }
      await startSession(ctx, answer.sessionToken, answer.session);
      ctx.append("Set-Cookie", challengeClearCookie(challengeCookie));
      respond(ctx, 204, "");
    },
    { before: [noAuthorization, sameOrigin, ...signInLimit, jsonBody(deps.config.BODY_LIMIT_BYTES)] },
  );

  // Single sign-on. Both routes are navigations (GET, no Origin sent): nothing here changes a
  // session the browser already has but a sign-in, which the attempt cookie and its state bind to
  // this browser. Both count on sign-in's per-address limit.
  const ssoGuards = [noAuthorization, ...signInLimit];
  const requireAppOrigin = (ctx: Context): string => {
    const origin = appOrigin(ctx);
    if (origin === undefined) throw validationError([{ path: "/headers/host", message: "must name the support application's host" }], "The request names no usable Host");
    return origin;
  };

  api.operation(
    "startAgentSingleSignOn",
    async (ctx) => {
      const origin = requireAppOrigin(ctx);
      const { company, email, next } = ctx.state.validated.query;
      const started = await call(() =>
        agentAccess.startSingleSignOn({
          companyId: company ?? "", email: email ?? "", returnTo: next ?? "", redirectUri: new URL(SSO_CALLBACK_PATH, origin).href, clientAddress: addressOf(ctx),
        }),
      );
      const expiresAt = started.expiresAt ? timestampMs(started.expiresAt) : Date.now() + 600_000;
      ctx.append("Set-Cookie", ssoSetCookie(ssoCookieFor(cookieOf(ctx)), started.attemptToken, (expiresAt - Date.now()) / 1000));
      ctx.set("Location", started.authorizationUrl);
      ctx.set("Cache-Control", "no-store");
      respond(ctx, 303, "");
    },
    { before: ssoGuards },
  );

  api.operation(
    "completeAgentSingleSignOn",
    async (ctx) => {
      const app = appAddressOf(deps.config.SUPPORT_APP_URL, requireAppOrigin(ctx));
      const ssoCookie = ssoCookieFor(cookieOf(ctx));
      // Used up by this request whatever happens: the browser forgets it too.
      ctx.append("Set-Cookie", ssoClearCookie(ssoCookie));
      ctx.set("Cache-Control", "no-store");
      let answer;
      try {
        answer = await agentAccess.completeSingleSignOn({
          attemptToken: ssoAttemptOf(ctx.headers.cookie, ssoCookie) ?? "", callbackQuery: ctx.querystring, clientAddress: addressOf(ctx),
          userAgent: ctx.get("User-Agent").slice(0, 512),
        });
      } catch (error) {
        const appError = connectToAppError(error);
        if (appError.code !== "unauthenticated" || appError.details?.type !== "SSO_FAILED") throw error;
        ctx.set("Location", signInPageUrl(app, { error: ssoErrorCodeOf(appError.details.payload?.reason) }));
        respond(ctx, 303, "");
        return;
      }
      if (answer.twoFactorChallenge && answer.twoFactorChallengeExpiresAt) {
        const expiresAt = timestampMs(answer.twoFactorChallengeExpiresAt);
        ctx.append("Set-Cookie", challengeSetCookie(challengeCookieFor(cookieOf(ctx)), answer.twoFactorChallenge, (expiresAt - Date.now()) / 1000));
        ctx.set("Location", signInPageUrl(app, { step: "two_factor", next: answer.returnTo || "/" }));
        respond(ctx, 303, "");
        return;
      }
      await startSession(ctx, answer.sessionToken, answer.session);
      ctx.set("Location", appPageUrl(app, answer.returnTo || "/"));
      respond(ctx, 303, "");
    },
    { before: ssoGuards },
  );

  api.operation<"startAgentTwoFactorEnrolment", AgentSessionState>(
    "startAgentTwoFactorEnrolment",
    async (ctx) => {
      const { otpauthUri, secret } = await call(() => agentAccess.startTwoFactorEnrolment({ sessionToken: ctx.state.agentSessionToken, clientAddress: addressOf(ctx) }));
      respond(ctx, 200, { otpauthUri, secret, qrCode: await qrCodeDataUrl(otpauthUri) });
    },
    // A session limited to enrolment may do this (it is what it is for).
    { before: [noAuthorization, sameOrigin, session, csrfToken] },
  );

  api.operation<"confirmAgentTwoFactorEnrolment", AgentSessionState>(
    "confirmAgentTwoFactorEnrolment",
    async (ctx) => {
      const { agentSession, agentSessionToken } = ctx.state;
      const answer = await call(() =>
        agentAccess.confirmTwoFactorEnrolment({
          sessionToken: agentSessionToken, code: ctx.state.validated.body.code, clientAddress: addressOf(ctx), userAgent: ctx.get("User-Agent").slice(0, 512),
        }),
      );
      // Content replaced the session with a new one: this replica forgets the old at once.
      sessions.invalidate(agentSession.id);
      sessions.evict(hashSessionToken(agentSessionToken));
      await startSession(ctx, answer.sessionToken, answer.session, { endPrevious: false });
      respond(ctx, 200, { recoveryCodes: [...answer.recoveryCodes] });
    },
    { before: [noAuthorization, sameOrigin, session, csrfToken, jsonBody(deps.config.BODY_LIMIT_BYTES)] },
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

  // The user's own availability toggle (routing). The session's cached copy is dropped so that
  // the next `me` reads the new value; other browsers of the user see it within the cache time.
  api.operation<"setAgentAvailability", AgentSessionState>(
    "setAgentAvailability",
    async (ctx) => {
      const { agentSession, agentSessionToken } = ctx.state;
      const { available } = await call(() =>
        agentAccess.setAvailability({ companyId: agentSession.companyId, userId: agentSession.user.id, available: ctx.state.validated.body.available }),
      );
      sessions.evict(hashSessionToken(agentSessionToken));
      respond(ctx, 200, { available });
    },
    { before: [noAuthorization, sameOrigin, session, csrfToken, requireFullSession, jsonBody(deps.config.BODY_LIMIT_BYTES)] },
  );

  api.operation<"getAgentMe", AgentSessionState>(
    "getAgentMe",
    (ctx) => {
      respond(ctx, 200, toAgentMe(ctx.state.agentSession));
    },
    { before: [noAuthorization, session] },
  );

  return { read: [noAuthorization, session, requireFullSession], write: [noAuthorization, sameOrigin, session, csrfToken, requireFullSession], clientAddress: addressOf };
}
