// GET /support/sessions/redirect and POST /support/sessions: public web support sessions,
// which open the web support for a player without an API key. Public, so each request is first counted against the abuse limits, then
// validated against the OpenAPI document; every session rule (token, language, resource,
// signed metadata, precedence, verification) lives in the players service. These handlers
// only turn the query or body into a CreateSupportSession call and its answer into a 307 or
// `{sessionCode, url}`.
import { AppError } from "@support/errors";
import { connectToAppError } from "@support/rpc";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Context, Middleware } from "koa";
import type { PlayersClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { errorAnswer } from "../middleware/errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { createPublicRateLimiter, parseTrustProxy, refusalCounter, tokenBucketOf, type PublicRateLimiter, type RateLimitStore } from "../middleware/rate-limit.ts";
import { sessionRequestFromQuery, toCreateSupportSessionRequest } from "../mappings/sessions.ts";
import type { Schemas } from "../openapi/types.ts";
import { respond, type ApiRoutes } from "./api.ts";

type SessionConfig = Pick<
  GatewayConfig,
  "WEB_SUPPORT_URL" | "BODY_LIMIT_BYTES" | "PUBLIC_RATE_LIMIT_PER_ADDRESS" | "PUBLIC_RATE_LIMIT_PER_TOKEN" | "PUBLIC_RATE_LIMIT_WINDOW_SECONDS" | "TRUST_PROXY"
> &
  Partial<Pick<GatewayConfig, "RATE_LIMIT_REFUSED_CACHE_MAX">>;

export interface SessionRoutesDeps {
  players: PlayersClient;
  config: SessionConfig;
  /** By default: the counters of the players service (shared by every replica). */
  limiter?: PublicRateLimiter;
  /** Where the default limiter counts its refusals (limit "session_create"). */
  registry?: Registry;
  logger?: Logger;
}

/** The shared counters: players.ConsumeRateLimit (Postgres). */
export function playersRateLimitStore(players: PlayersClient): RateLimitStore {
  return async (windowSeconds, buckets) => {
    const answer = await players.consumeRateLimit({ windowSeconds, buckets });
    return { allowed: answer.allowed, exceededKey: answer.exceededKey, retryAfterSeconds: answer.retryAfterSeconds };
  };
}

export function createSessionRateLimiter(players: PlayersClient, config: SessionConfig, registry?: Registry): PublicRateLimiter {
  return createPublicRateLimiter(playersRateLimitStore(players), {
    perAddress: config.PUBLIC_RATE_LIMIT_PER_ADDRESS,
    perToken: config.PUBLIC_RATE_LIMIT_PER_TOKEN,
    windowSeconds: config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    refusedCacheMax: config.RATE_LIMIT_REFUSED_CACHE_MAX,
    onRefused: refusalCounter(registry, "session_create"),
  });
}

/** `<WEB_SUPPORT_URL>?sid=<code>`, keeping the query (and fragment) WEB_SUPPORT_URL already has. */
export function sessionUrl(webSupportUrl: string, sessionCode: string): string {
  const url = new URL(webSupportUrl);
  url.searchParams.set("sid", sessionCode);
  return url.toString();
}

/**
 * The players service names problems by body paths (`/player/email`, `/tags/0`,
 * `/fields/level`); for the redirect they are query parameters (`/query/player.email`, `/query/tags`,
 * `/query/fields.level`).
 */
export function queryIssuePath(path: string): string {
  const player = /^\/player\/([^/]+)$/.exec(path);
  if (player) return `/query/player.${player[1]}`;
  if (/^\/tags(?:\/\d+)?$/.test(path)) return "/query/tags";
  const field = /^\/fields\/(.+)$/.exec(path);
  if (field) return `/query/fields.${field[1]}`;
  return `/query${path === "/" ? "" : path}`;
}

async function createSession(players: PlayersClient, request: Schemas["CreateSupportSessionRequest"], fromQuery: boolean) {
  try {
    return await players.createSupportSession(toCreateSupportSessionRequest(request, fromQuery));
  } catch (error) {
    const appError = connectToAppError(error);
    if (!fromQuery || appError.details?.issues === undefined) throw appError;
    const issues = appError.details.issues.map((issue) => ({ path: queryIssuePath(issue.path), message: issue.message }));
    throw new AppError(appError.code, appError.message, { ...appError.details, issues });
  }
}

/** Why a browser's redirect was refused, as the web support page names it in `#/refused/<reason>`. */
export type RefusalReason = "token" | "resource" | "language" | "link" | "busy" | "unavailable";

export function refusalReasonOf(status: number, issuePaths: readonly string[]): RefusalReason {
  if (status === 404) return "token";
  if (status === 429) return "busy";
  if (status >= 500) return "unavailable";
  if (issuePaths.some((path) => path === "/query/resource")) return "resource";
  if (issuePaths.some((path) => path === "/query/language")) return "language";
  return "link";
}

/**
 * The redirect is a link that players open in a browser (the game's web view): a refusal there
 * is sent on to the web support page, which explains it in the player's language, instead of
 * showing the JSON error body. Only when the request prefers HTML to JSON (a browser's
 * navigation); API clients keep the error status and body of the contract. 303, never stored.
 */
function refusalsToThePage(webSupportUrl: string, logger: Logger | undefined): Middleware {
  return async (ctx, next) => {
    if (ctx.accepts("json", "html") !== "html") return next();
    try {
      await next();
    } catch (error) {
      const { status, body } = errorAnswer(error, true);
      const issues = body.details?.issues ?? [];
      if (status >= 500) logger?.warn({ err: error, path: ctx.path }, "support session redirect failed; the browser is sent to the page's explanation");
      const page = new URL(webSupportUrl);
      page.hash = `/refused/${refusalReasonOf(status, issues.map((issue) => issue.path))}`;
      ctx.set("Cache-Control", "no-store");
      ctx.status = 303;
      ctx.set("Location", page.toString());
      ctx.body = "";
    }
  };
}

const tokenFromQuery = (ctx: Context) => tokenBucketOf(ctx.query.token);
// Read before validation: the body may be anything yet.
const tokenFromBody = (ctx: Context) => {
  const { body } = ctx.request;
  return tokenBucketOf(body !== null && typeof body === "object" && "token" in body ? body.token : undefined);
};

export function registerSessionRoutes(api: ApiRoutes, deps: SessionRoutesDeps): void {
  const { players } = deps;
  const limiter = deps.limiter ?? createSessionRateLimiter(players, deps.config, deps.registry);

  // Public operations take their own chain: the abuse limits come before validation, so that
  // malformed requests are counted too.
  api.operation(
    "redirectToSupportSession",
    async (ctx) => {
      const { sessionCode } = await createSession(players, sessionRequestFromQuery(ctx.state.validated.query, ctx.query), true);
      ctx.set("Location", sessionUrl(deps.config.WEB_SUPPORT_URL, sessionCode));
      // The address carries the player's credential: no cache may keep it.
      ctx.set("Cache-Control", "no-store");
      respond(ctx, 307, "");
    },
    { before: [refusalsToThePage(deps.config.WEB_SUPPORT_URL, deps.logger), limiter.middleware(tokenFromQuery)] },
  );

  api.operation(
    "createSupportSession",
    async (ctx) => {
      const { sessionCode } = await createSession(players, ctx.state.validated.body, false);
      ctx.set("Cache-Control", "no-store");
      respond(ctx, 200, { sessionCode, url: sessionUrl(deps.config.WEB_SUPPORT_URL, sessionCode) });
    },
    { before: [jsonBody(deps.config.BODY_LIMIT_BYTES), limiter.middleware(tokenFromBody)] },
  );
}
