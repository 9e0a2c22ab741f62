// 4.17 GET /support/sessions/redirect and 4.18 POST /support/sessions: public web support
// sessions (D8). Public, so each request is first counted against the abuse limits, then
// validated against the OpenAPI document; every session rule (token, language, resource,
// signed metadata, precedence, verification) lives in the players service. These handlers
// only turn the query or body into a CreateSupportSession call and its answer into a 307 or
// `{sessionCode, url}`.
import type { JsonObject } from "@bufbuild/protobuf";
import { AppError } from "@support/errors";
import { connectToAppError } from "@support/rpc";
import type { Context, Middleware } from "koa";
import type { PlayersClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { createPublicRateLimiter, parseTrustProxy, tokenBucketOf, type PublicRateLimiter, type RateLimitStore } from "../middleware/rate-limit.ts";
import { validateOperation } from "../openapi/validation.ts";
import type { GatewayContext, GatewayMiddleware } from "../types.ts";
import type { ApiRoutes } from "./api.ts";

type SessionConfig = Pick<
  GatewayConfig,
  "WEB_SUPPORT_URL" | "BODY_LIMIT_BYTES" | "PUBLIC_RATE_LIMIT_PER_ADDRESS" | "PUBLIC_RATE_LIMIT_PER_TOKEN" | "PUBLIC_RATE_LIMIT_WINDOW_SECONDS" | "TRUST_PROXY"
>;

export interface SessionRoutesDeps {
  players: PlayersClient;
  config: SessionConfig;
  /** By default: the counters of the players service (shared by every replica). */
  limiter?: PublicRateLimiter;
}

/** The shared counters: players.ConsumeRateLimit (Postgres). */
export function playersRateLimitStore(players: PlayersClient): RateLimitStore {
  return async (windowSeconds, buckets) => {
    const answer = await players.consumeRateLimit({ windowSeconds, buckets });
    return { allowed: answer.allowed, exceededKey: answer.exceededKey, retryAfterSeconds: answer.retryAfterSeconds };
  };
}

export function createSessionRateLimiter(players: PlayersClient, config: SessionConfig): PublicRateLimiter {
  return createPublicRateLimiter(playersRateLimitStore(players), {
    perAddress: config.PUBLIC_RATE_LIMIT_PER_ADDRESS,
    perToken: config.PUBLIC_RATE_LIMIT_PER_TOKEN,
    windowSeconds: config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
  });
}

interface SessionPlayerInput {
  id?: string;
  name?: string;
  email?: string;
  tier?: number;
}

interface SessionRequest {
  token: string;
  language?: string;
  resource?: string;
  signedMetadataToken?: string;
  player?: SessionPlayerInput;
  tags: string[];
  fields?: JsonObject;
}

/** `<WEB_SUPPORT_URL>?sid=<code>`, keeping the query (and fragment) WEB_SUPPORT_URL already has. */
export function sessionUrl(webSupportUrl: string, sessionCode: string): string {
  const url = new URL(webSupportUrl);
  url.searchParams.set("sid", sessionCode);
  return url.toString();
}

/** Runs middleware in order, then the route's `next`. */
function chain(middleware: Middleware[]): GatewayMiddleware {
  return (ctx, next) => {
    const run = (index: number): Promise<unknown> =>
      index === middleware.length ? next() : Promise.resolve(middleware[index]!(ctx as never, () => run(index + 1) as Promise<void>));
    return run(0) as Promise<void>;
  };
}

/** 4.17's query as a session request: `player.*`, `tags` (comma-separated, repeatable), `fields.<key>`. */
export function sessionRequestFromQuery(validated: Record<string, unknown>, rawQuery: Record<string, string | string[] | undefined>): SessionRequest {
  const player: SessionPlayerInput = {};
  for (const key of ["id", "name", "email", "tier"] as const) {
    const value = validated[`player.${key}`];
    if (value !== undefined) (player as Record<string, unknown>)[key] = value;
  }
  const tags = ((validated.tags as string[] | undefined) ?? []).flatMap((value) => value.split(",")).map((tag) => tag.trim()).filter((tag) => tag !== "");
  const fields: JsonObject = {};
  for (const [name, value] of Object.entries(rawQuery)) {
    if (!name.startsWith("fields.") || name.length === "fields.".length || value === undefined) continue;
    fields[name.slice("fields.".length)] = value;
  }
  return {
    token: validated.token as string,
    language: validated.language as string | undefined,
    resource: validated.resource as string | undefined,
    signedMetadataToken: validated.signedMetadataToken as string | undefined,
    player: Object.keys(player).length > 0 ? player : undefined,
    tags,
    fields: Object.keys(fields).length > 0 ? fields : undefined,
  };
}

/**
 * The players service names problems by body paths (`/player/email`, `/tags/0`,
 * `/fields/level`); for 4.17 they are query parameters (`/query/player.email`, `/query/tags`,
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

async function createSession(players: PlayersClient, request: SessionRequest, fromQuery: boolean) {
  try {
    return await players.createSupportSession({
      token: request.token,
      language: request.language,
      resource: request.resource,
      signedMetadataToken: request.signedMetadataToken,
      metadata: { player: request.player, tags: request.tags, fields: request.fields },
      fieldsFromQuery: fromQuery,
    });
  } catch (error) {
    const appError = connectToAppError(error);
    if (!fromQuery || appError.details?.issues === undefined) throw appError;
    const issues = appError.details.issues.map((issue) => ({ path: queryIssuePath(issue.path), message: issue.message }));
    throw new AppError(appError.code, appError.message, { ...appError.details, issues });
  }
}

const tokenFromQuery = (ctx: Context) => tokenBucketOf(ctx.query.token);
const tokenFromBody = (ctx: Context) => tokenBucketOf(((ctx.request as { body?: unknown }).body as { token?: unknown } | undefined)?.token);

export function registerSessionRoutes(api: ApiRoutes, deps: SessionRoutesDeps): void {
  const { players } = deps;
  const limiter = deps.limiter ?? createSessionRateLimiter(players, deps.config);

  // Public operations take their own chain: the abuse limits come before validation, so that
  // malformed requests are counted too.
  api.operation(
    "redirectToSupportSession",
    chain([
      limiter.middleware(tokenFromQuery),
      validateOperation("redirectToSupportSession"),
      async (ctx) => {
        const request = sessionRequestFromQuery((ctx.state as GatewayContext["state"]).validated.query, ctx.query);
        const { sessionCode } = await createSession(players, request, true);
        ctx.status = 307;
        ctx.set("Location", sessionUrl(deps.config.WEB_SUPPORT_URL, sessionCode));
        // The address carries the player's credential: no cache may keep it.
        ctx.set("Cache-Control", "no-store");
        ctx.body = "";
      },
    ]),
    { validate: false },
  );

  api.operation(
    "createSupportSession",
    chain([
      jsonBody(deps.config.BODY_LIMIT_BYTES),
      limiter.middleware(tokenFromBody),
      validateOperation("createSupportSession"),
      async (ctx) => {
        const body = (ctx.state as GatewayContext["state"]).validated.body as Omit<SessionRequest, "tags"> & { tags?: string[]; player?: Record<string, unknown> };
        const player = body.player && { id: body.player.id, name: body.player.name, email: body.player.email, tier: body.player.tier } as SessionPlayerInput;
        const { sessionCode } = await createSession(players, { ...body, player, tags: body.tags ?? [] }, false);
        ctx.set("Cache-Control", "no-store");
        ctx.body = { sessionCode, url: sessionUrl(deps.config.WEB_SUPPORT_URL, sessionCode) };
      },
    ]),
    { validate: false },
  );
}
