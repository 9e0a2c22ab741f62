// The player side (D9): `/player-api/...`, authenticated by a web support session code
// (`Authorization: Session <sessionCode>`) instead of an API key. The session (players'
// GetSupportSession) names the company, game and player; every rule about tickets (who owns
// one, states, CSAT) lives in the tickets service's PlayerSideService. Per route:
// abuse limits -> session check -> JSON body -> OpenAPI validation -> handler, so a missing
// or expired session is a 403 before any body is read, and every request, a refused one
// included, counts against its client address and (when it carries a plausible code) the
// code's hash.
import { createHash } from "node:crypto";
import { fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import { AppError } from "@support/errors";
import { connectToAppError } from "@support/rpc";
import type { Middleware } from "koa";
import { CoalescingCache } from "../cache.ts";
import type { MediaClient, PlayerSideClient, PlayersClient, TicketsClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { createPublicRateLimiter, parseTrustProxy, type PublicRateLimiter } from "../middleware/rate-limit.ts";
import { validateOperation } from "../openapi/validation.ts";
import type { GatewayContext, GatewayMiddleware, GatewayState } from "../types.ts";
import type { ApiRoutes } from "./api.ts";
import { playersRateLimitStore } from "./sessions.ts";
import { toEventDto } from "./tickets.ts";

/** What a live session code stands for. */
export interface PlayerSession {
  companyId: string;
  gameId: string;
  environmentId: string;
  language: string | undefined;
  player: { id?: string | undefined; name?: string | undefined; email?: string | undefined; tier?: number | undefined };
  tags: string[];
  fields: JsonObject;
  expiresAt: number;
}

/** Cached answer for a code players does not know (or that expired). */
const UNKNOWN_SESSION: PlayerSession = Object.freeze({
  companyId: "", gameId: "", environmentId: "", language: undefined, player: {}, tags: [], fields: {}, expiresAt: 0,
});

/** Live sessions are remembered this long (never past their expiry); unknown codes a moment. */
export const SESSION_CACHE_TTL_MS = 10_000;
export const SESSION_NEGATIVE_CACHE_TTL_MS = 2_000;

export type SessionCache = CoalescingCache<PlayerSession>;

export function createSessionCache(options: { ttlMs?: number; negativeTtlMs?: number; max?: number } = {}): SessionCache {
  const ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? SESSION_NEGATIVE_CACHE_TTL_MS;
  return new CoalescingCache<PlayerSession>({
    max: options.max ?? 50_000,
    ttlMs,
    ttlOf: (session) => (session === UNKNOWN_SESSION ? negativeTtlMs : Math.max(1, Math.min(ttlMs, session.expiresAt - Date.now()))),
  });
}

const plausibleCode = /^[A-Za-z0-9._~+/-]{8,512}=*$/;

/** The code of an `Authorization: Session <code>` header; undefined for anything else. */
export function sessionCodeOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(" ");
  if (space !== 7 || header.slice(0, 7).toLowerCase() !== "session") return undefined;
  const code = header.slice(8).trim();
  return plausibleCode.test(code) ? code : undefined;
}

export function hashSessionCode(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

export function sessionRequired(): AppError {
  return new AppError("unauthenticated", "A valid session code is required");
}

type PlayerSideContext = GatewayContext & { state: GatewayState & { session: PlayerSession; receivedAt: number } };

/** Koa middleware: sets `ctx.state.session` (and companyId) or throws the 403. */
export function createSessionAuth(players: PlayersClient, cache: SessionCache): Middleware {
  const load = async (code: string): Promise<PlayerSession> => {
    try {
      const { session } = await players.getSupportSession({ sessionCode: code });
      if (!session) return UNKNOWN_SESSION;
      const player = session.metadata?.player;
      return {
        companyId: session.companyId,
        gameId: session.gameId,
        environmentId: session.environmentId,
        language: session.language,
        player: player ? { id: player.id, name: player.name, email: player.email, tier: player.tier } : {},
        tags: session.metadata?.tags ?? [],
        fields: (session.metadata?.fields ?? {}) as JsonObject,
        expiresAt: session.expiresAt ? Number(session.expiresAt.seconds) * 1000 + Math.floor(session.expiresAt.nanos / 1e6) : Date.now() + SESSION_CACHE_TTL_MS,
      };
    } catch (error) {
      // Only "no such live session" is an answer worth caching; an outage propagates (503).
      const { code } = connectToAppError(error);
      if (code === "not_found" || code === "invalid_argument") return UNKNOWN_SESSION;
      throw error;
    }
  };
  return async (ctx, next) => {
    const receivedAt = Date.now();
    const code = sessionCodeOf(ctx.headers.authorization);
    if (code === undefined) throw sessionRequired();
    // Keyed by the code's hash (like API keys): the cache never holds the credential itself.
    const found = cache.get(hashSessionCode(code), () => load(code));
    const session = found instanceof Promise ? await found : found;
    if (session === UNKNOWN_SESSION || session.expiresAt <= Date.now()) throw sessionRequired();
    const state = ctx.state as PlayerSideContext["state"];
    state.session = session;
    state.receivedAt = receivedAt;
    state.companyId = session.companyId;
    await next();
  };
}

/** Runs middleware in order, then the route's `next`. */
function chain(middleware: Middleware[]): GatewayMiddleware {
  return (ctx, next) => {
    const run = (index: number): Promise<unknown> =>
      index === middleware.length ? next() : Promise.resolve(middleware[index]!(ctx as never, () => run(index + 1) as Promise<void>));
    return run(0) as Promise<void>;
  };
}

export type PlayerApiRateLimitConfig = Pick<
  GatewayConfig,
  "PLAYER_API_RATE_LIMIT_PER_SESSION" | "PLAYER_API_RATE_LIMIT_PER_ADDRESS" | "PUBLIC_RATE_LIMIT_WINDOW_SECONDS" | "TRUST_PROXY"
>;

/**
 * The abuse limits of `/player-api` on the shared counters (players.ConsumeRateLimit, like the
 * public session endpoints): per session code (bucket `player-api:session:<sha256 of the code>`,
 * never the code itself) and per client address (`player-api:address:<address>`, counted apart
 * from the public endpoints' address bucket).
 */
export function createPlayerApiRateLimiter(players: PlayersClient, config: PlayerApiRateLimitConfig): PublicRateLimiter {
  return createPublicRateLimiter(playersRateLimitStore(players), {
    perAddress: config.PLAYER_API_RATE_LIMIT_PER_ADDRESS,
    perToken: config.PLAYER_API_RATE_LIMIT_PER_SESSION,
    windowSeconds: config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    keyPrefix: "player-api:",
    credential: "session",
  });
}

export interface PlayerSideRoutesDeps {
  players: PlayersClient;
  tickets: TicketsClient;
  media: MediaClient;
  playerSide: PlayerSideClient;
  bodyLimitBytes: number;
  sessions?: SessionCache;
  /** The abuse limits; by default none (the server passes createPlayerApiRateLimiter's). */
  limiter?: PublicRateLimiter;
}

function owner(session: PlayerSession) {
  return { companyId: session.companyId, gameId: session.gameId, playerId: session.player.id, email: session.player.email };
}

const iso = (date: { seconds: bigint; nanos: number } | undefined): string | null =>
  date === undefined ? null : new Date(Number(date.seconds) * 1000 + Math.floor(date.nanos / 1e6)).toISOString();

export function registerPlayerSideRoutes(api: ApiRoutes, deps: PlayerSideRoutesDeps): void {
  const { tickets, media, playerSide } = deps;
  const authenticate = createSessionAuth(deps.players, deps.sessions ?? createSessionCache());
  const body = jsonBody(deps.bodyLimitBytes);

  const limits: Middleware[] = deps.limiter
    ? [deps.limiter.middleware((ctx) => {
        const code = sessionCodeOf(ctx.headers.authorization);
        return code === undefined ? undefined : hashSessionCode(code);
      })]
    : [];

  const mount = (operationId: string, withBody: boolean, handler: (ctx: PlayerSideContext) => Promise<void>) => {
    const steps: Middleware[] = [...limits, authenticate];
    if (withBody) steps.push(body);
    steps.push(validateOperation(operationId), handler as unknown as Middleware);
    api.operation(operationId, chain(steps), { validate: false });
  };
  const ticketIdOf = (ctx: PlayerSideContext) => String(ctx.state.validated.params.ticketId);
  /** The session player's ticket (404 for any other); the events and breadcrumbs RPCs then use its id. */
  const ownTicket = async (ctx: PlayerSideContext) => {
    const { ticket } = await playerSide.getPlayerTicket({ owner: owner(ctx.state.session), ticketId: ticketIdOf(ctx) });
    if (!ticket) throw new Error("tickets returned no ticket");
    return ticket;
  };

  mount("listPlayerTickets", false, async (ctx) => {
    const response = await playerSide.listPlayerTickets({ owner: owner(ctx.state.session) });
    ctx.set("Cache-Control", "no-store");
    ctx.body = {
      tickets: response.tickets.map((ticket) => ({
        id: ticket.id,
        runningId: Number(ticket.runningId),
        status: ticket.status,
        createdAt: iso(ticket.createdAt),
        lastActivityAt: iso(ticket.lastActivityAt),
        resolutionType: ticket.resolutionType ?? null,
        csatScore: ticket.csatScore ?? null,
      })),
    };
  });

  mount("createPlayerTicket", true, async (ctx) => {
    const { session } = ctx.state;
    const request = ctx.state.validated.body as { message: string; attachments?: string[] };
    const response = await playerSide.createPlayerTicket({
      companyId: session.companyId,
      gameId: session.gameId,
      environmentId: session.environmentId || undefined,
      message: request.message,
      attachments: request.attachments ?? [],
      language: session.language,
      player: session.player,
      tags: session.tags,
      fields: session.fields,
    });
    ctx.body = { ticketId: response.ticketId, runningId: Number(response.runningId) };
  });

  mount("sendPlayerMessage", true, async (ctx) => {
    const request = ctx.state.validated.body as { message: string; attachments?: string[] };
    const response = await playerSide.addPlayerMessage({
      owner: owner(ctx.state.session),
      ticketId: ticketIdOf(ctx),
      message: request.message,
      attachments: request.attachments ?? [],
    });
    if (!response.ticket) throw new Error("tickets returned no ticket");
    ctx.body = { eventId: response.eventId, status: response.ticket.status };
  });

  mount("listPlayerTicketEvents", false, async (ctx) => {
    const ticket = await ownTicket(ctx);
    const { events } = await tickets.listTicketEvents({ companyId: ctx.state.session.companyId, ticketId: ticket.id });
    ctx.set("Cache-Control", "no-store");
    ctx.body = {
      events: events
        .filter((event) => event.payload.case !== "privateNote")
        .map(toEventDto)
        .filter((event) => event !== undefined),
    };
  });

  mount("submitPlayerCsat", true, async (ctx) => {
    const request = ctx.state.validated.body as { score: number; review?: string | null };
    await playerSide.submitCsat({ owner: owner(ctx.state.session), ticketId: ticketIdOf(ctx), score: request.score, review: request.review ?? undefined });
    ctx.body = { success: true };
  });

  mount("addPlayerBreadcrumbs", true, async (ctx) => {
    const request = ctx.state.validated.body as { breadcrumbs: { message: string; clientOccurredAt: string }[]; clientSentAt?: string };
    const ticket = await ownTicket(ctx);
    const clientClockOffsetMs = request.clientSentAt === undefined ? null : Date.parse(request.clientSentAt) - ctx.state.receivedAt;
    const { added } = await tickets.addTicketBreadcrumbs({
      companyId: ctx.state.session.companyId,
      ticketId: ticket.id,
      breadcrumbs: request.breadcrumbs.map((breadcrumb) => ({
        message: breadcrumb.message,
        clientOccurredAt: timestampFromDate(new Date(breadcrumb.clientOccurredAt)),
      })),
      clientClockOffsetMs: clientClockOffsetMs === null ? undefined : BigInt(clientClockOffsetMs),
    });
    ctx.body = { added, clientClockOffsetMs };
  });

  mount("addPlayerCollectorResult", true, async (ctx) => {
    const request = ctx.state.validated.body as {
      collectorId: string;
      title: string;
      fields: { key?: string | null; label: string; type: string; value?: JsonValue; attachments?: string[] }[];
    };
    const response = await playerSide.addCollectorResult({
      owner: owner(ctx.state.session),
      ticketId: ticketIdOf(ctx),
      collectorId: request.collectorId,
      title: request.title,
      fields: request.fields.map((field) => ({
        key: field.key ?? undefined,
        label: field.label,
        type: field.type,
        value: field.type === "FILE" ? undefined : fromJson(ValueSchema, field.value ?? null),
        attachmentIds: field.attachments ?? [],
      })),
    });
    if (!response.ticket) throw new Error("tickets returned no ticket");
    ctx.body = { eventId: response.eventId, resultId: response.resultId, status: response.ticket.status };
  });

  mount("createPlayerAttachment", true, async (ctx) => {
    const { session } = ctx.state;
    const request = ctx.state.validated.body as { fileName: string; fileType: string; fileSize: number };
    const instruction = await media.createAttachmentUpload({
      companyId: session.companyId,
      gameId: session.gameId,
      fileName: request.fileName,
      fileType: request.fileType,
      fileSize: BigInt(request.fileSize),
      playerId: session.player.id,
    });
    ctx.body = {
      attachmentId: instruction.attachmentId,
      uploadUrl: instruction.uploadUrl,
      uploadMethod: instruction.uploadMethod,
      uploadHeaders: instruction.uploadHeaders,
      uploadExpiresInSeconds: instruction.uploadExpiresInSeconds,
    };
  });
}
