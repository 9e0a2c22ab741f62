// The player side: `/player-api/...`, what the web support calls for its player, authenticated by a web support session code
// (`Authorization: Session <sessionCode>`) instead of an API key. The session (players'
// GetSupportSession) names the company, game and player; every rule about tickets (who owns
// one, states, CSAT) lives in the tickets service's PlayerSideService. Per route:
// abuse limits -> session check -> JSON body -> OpenAPI validation -> handler, so a missing
// or expired session is a 403 before any body is read, and every request, a refused one
// included, counts against its client address and (when it carries a plausible code) the
// code's hash.
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { AppError, isAppError, notFound, validationError } from "@support/errors";
import type { Logger } from "@support/logging";
import type { Registry } from "@support/metrics";
import type { Middleware } from "koa";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { LRUCache } from "lru-cache";
import type { SupportSession as SupportSessionMessage } from "@support/proto";
import type { PresenceBoard } from "../agent-api/presence.ts";
import { CoalescingCache } from "../cache.ts";
import type { AgentAccessClient, ContentClient, MediaClient, PlayerSideClient, PlayersClient, TicketsClient } from "../clients.ts";
import type { GatewayConfig } from "../config.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { createPublicRateLimiter, parseTrustProxy, refusalCounter, type PublicRateLimiter } from "../middleware/rate-limit.ts";
import { toCreateAttachmentUploadRequest, toUploadInstructionDto } from "../mappings/attachments.ts";
import { ticketStatus, toBreadcrumbMessages, toCollectorFieldMessages, toPlayerTicketSummaryDto } from "../mappings/player-side.ts";
import { toEventDtos } from "../mappings/tickets.ts";
import { toPlayerBrandingDto } from "../mappings/player-branding.ts";
import {
  shownArticles, toCollectorDefinitionDto, toPlayerAnnouncementDto, toPlayerResourceDto, toPlayerSearchResultDto, toResourceSummaryDto,
} from "../mappings/player-session.ts";
import { checkCollectorAnswers, withDefinitionLabels } from "../player-side/collector-answers.ts";
import { sessionLanguage } from "../player-side/localization.ts";
import { openTicketStream, TicketStreamHub, type StreamEvent, type StreamSnapshot } from "../player-side/ticket-stream.ts";
import { HttpProblem } from "../middleware/errors.ts";
import { getOperation } from "../openapi/operations.ts";
import type { OperationId, Schemas } from "../openapi/types.ts";
import type { OperationHandler } from "../types.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { answerEventStream } from "./event-stream.ts";
import type { PlayerPageData } from "./web-support.ts";
import { playersRateLimitStore } from "./sessions.ts";

/** What a live session code stands for. */
export interface PlayerSession {
  /** The session's id (not its code). */
  id: string;
  companyId: string;
  gameId: string;
  environmentId: string;
  language: string | undefined;
  /** The resource key the session was opened on; undefined for the support home page. */
  resource: string | undefined;
  player: { id?: string | undefined; name?: string | undefined; email?: string | undefined; tier?: number | undefined };
  tags: string[];
  fields: JsonObject;
  expiresAt: number;
  /** "verified": the game signed the player; "unverified": an unsigned id; "anonymous": no id. */
  verification: "verified" | "unverified" | "anonymous";
  /** Whether the player proved the session's email with an emailed code. */
  emailVerified: boolean;
  /** When this copy was read from players (ms since the epoch): invalidations older than it do not apply. */
  loadedAt: number;
}

/** Cached answer for a code players does not know (or that expired). */
const UNKNOWN_SESSION: PlayerSession = Object.freeze({
  id: "", companyId: "", gameId: "", environmentId: "", language: undefined, resource: undefined, player: {}, tags: [], fields: {}, expiresAt: 0,
  verification: "anonymous" as const, emailVerified: false, loadedAt: 0,
});

/**
 * The identity the session has proven, which is all that decides which tickets it sees beyond
 * the ones it opened itself: the player id only when the game signed it, the email when the
 * game signed it or the player entered the code sent to it. Unsigned values stay on the
 * session (they still describe the tickets it opens) but never widen what it can read.
 */
export function verifiedIdentity(session: PlayerSession): { playerId?: string; email?: string } {
  const identity: { playerId?: string; email?: string } = {};
  if (session.verification === "verified" && session.player.id !== undefined) identity.playerId = session.player.id;
  if ((session.verification === "verified" || session.emailVerified) && session.player.email !== undefined) identity.email = session.player.email;
  return identity;
}

/** How the page describes the session's proof of identity (`verification` of GET /player-api/session). */
export function verificationStatus(session: PlayerSession): "verified" | "email_verified" | "unverified" {
  if (session.verification === "verified" && (session.player.id !== undefined || session.player.email !== undefined)) return "verified";
  return session.emailVerified ? "email_verified" : "unverified";
}

/** Live sessions are remembered this long (never past their expiry); unknown codes a moment. */
export const SESSION_CACHE_TTL_MS = 10_000;
export const SESSION_NEGATIVE_CACHE_TTL_MS = 2_000;

/** How long a session id stays marked as changed: longer than any cached copy of it lives. */
const INVALIDATION_MEMORY_MS = 60_000;

/**
 * The gateway's cache of sessions, keyed by the SHA-256 of their codes. players publishes
 * players.session.verified and players.session.ended, which name sessions by id: such an event
 * marks the id, and a cached copy read before the mark is read again (verified) or refused
 * (ended, since players no longer knows it) on its next use, on every replica at once.
 */
export class SessionCache extends CoalescingCache<PlayerSession> {
  readonly #changed = new LRUCache<string, number>({ max: 100_000, ttl: INVALIDATION_MEMORY_MS });

  /** A session changed or ended now: cached copies read before now are not used again. */
  invalidate(sessionId: string, at: number = Date.now()): void {
    this.#changed.set(sessionId, at);
  }

  /** Whether this cached copy predates a change of its session. */
  isStale(session: PlayerSession): boolean {
    const changedAt = this.#changed.get(session.id);
    return changedAt !== undefined && changedAt >= session.loadedAt;
  }
}

export const DEFAULT_SESSION_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The size a cached session is counted as: its metadata (up to 100 tags and 100 fields of up to
 * 10,000 characters each, so up to ~1 MB) in UTF-8 bytes, plus a fixed part for the rest. The
 * entry count alone would let 50,000 large sessions take gigabytes.
 */
export function sessionSize(session: PlayerSession): number {
  return 512 + Buffer.byteLength(JSON.stringify(session.player)) + Buffer.byteLength(JSON.stringify(session.tags)) + Buffer.byteLength(JSON.stringify(session.fields));
}

export function createSessionCache(options: { ttlMs?: number; negativeTtlMs?: number; max?: number; maxBytes?: number } = {}): SessionCache {
  const ttlMs = options.ttlMs ?? SESSION_CACHE_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? SESSION_NEGATIVE_CACHE_TTL_MS;
  return new SessionCache({
    max: options.max ?? 50_000,
    maxSize: { total: options.maxBytes ?? DEFAULT_SESSION_CACHE_MAX_BYTES, sizeOf: sessionSize },
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

/** What the session check adds to the state of a player-side request. */
interface PlayerSideState {
  session: PlayerSession;
  /** When the request arrived (ms since the epoch): breadcrumbs measure the client's clock against it. */
  receivedAt: number;
}

/**
 * Koa middleware: sets `ctx.state.session` (and companyId) or throws the 403. With `fresh`, the
 * session is read from players whatever the cache holds: for the requests that create data of
 * the player (a new ticket, an upload), which must fail as soon as the player's erasure ended
 * the session, even on a replica that has not heard of it yet.
 */
export function createSessionAuth(players: PlayersClient, cache: SessionCache, options: { fresh?: boolean } = {}): Middleware {
  const sessionOf = createSessionLoader(players, cache, options);
  return async (ctx, next) => {
    const receivedAt = Date.now();
    const code = sessionCodeOf(ctx.headers.authorization);
    if (code === undefined) throw sessionRequired();
    const session = await sessionOf(code);
    if (session === undefined) throw sessionRequired();
    const state: PlayerSideState & { companyId: string } = ctx.state;
    state.session = session;
    state.receivedAt = receivedAt;
    state.companyId = session.companyId;
    await next();
  };
}

/**
 * The live session a code stands for, or undefined (unknown, ended or expired), through the
 * cache; an outage propagates. With `fresh`, read from players whatever the cache holds.
 */
export function createSessionLoader(players: PlayersClient, cache: SessionCache, options: { fresh?: boolean } = {}): (code: string) => Promise<PlayerSession | undefined> {
  const load = async (code: string): Promise<PlayerSession> => {
    try {
      const loadedAt = Date.now();
      const { session } = await players.getSupportSession({ sessionCode: code });
      if (!session) return UNKNOWN_SESSION;
      return toPlayerSession(session, loadedAt);
    } catch (error) {
      // Only "no such live session" is an answer worth caching; an outage propagates (503).
      if (error instanceof AppError && (error.code === "not_found" || error.code === "invalid_argument")) return UNKNOWN_SESSION;
      throw error;
    }
  };
  return async (code) => {
    // Keyed by the code's hash (like API keys): the cache never holds the credential itself.
    const key = hashSessionCode(code);
    if (options.fresh) cache.evict(key);
    const found = cache.get(key, () => load(code));
    let session = found instanceof Promise ? await found : found;
    if (session !== UNKNOWN_SESSION && cache.isStale(session)) {
      cache.evict(key);
      const reloaded = cache.get(key, () => load(code));
      session = reloaded instanceof Promise ? await reloaded : reloaded;
    }
    if (session === UNKNOWN_SESSION || session.expiresAt <= Date.now()) return undefined;
    return session;
  };
}

/** The session as players stores it, as the player side uses it. */
export function toPlayerSession(session: SupportSessionMessage, loadedAt: number): PlayerSession {
  const player = session.metadata?.player;
  return {
    id: session.id,
    companyId: session.companyId,
    gameId: session.gameId,
    environmentId: session.environmentId,
    language: session.language,
    resource: session.resource,
    player: player ? { id: player.id, name: player.name, email: player.email, tier: player.tier } : {},
    tags: session.metadata?.tags ?? [],
    fields: session.metadata?.fields ?? {},
    expiresAt: session.expiresAt ? Number(session.expiresAt.seconds) * 1000 + Math.floor(session.expiresAt.nanos / 1e6) : Date.now() + SESSION_CACHE_TTL_MS,
    verification: session.verification === "verified" || session.verification === "unverified" ? session.verification : "anonymous",
    emailVerified: session.emailVerifiedAt !== undefined,
    loadedAt,
  };
}

export type PlayerApiRateLimitConfig = Pick<
  GatewayConfig,
  "PLAYER_API_RATE_LIMIT_PER_SESSION" | "PLAYER_API_RATE_LIMIT_PER_ADDRESS" | "PUBLIC_RATE_LIMIT_WINDOW_SECONDS" | "TRUST_PROXY"
> &
  Partial<Pick<GatewayConfig, "RATE_LIMIT_REFUSED_CACHE_MAX">>;

/**
 * The abuse limits of `/player-api` on the shared counters (players.ConsumeRateLimit, like the
 * public session endpoints): per session code (bucket `player-api:session:<sha256 of the code>`,
 * never the code itself) and per client address (`player-api:address:<address>`, counted apart
 * from the public endpoints' address bucket).
 */
export function createPlayerApiRateLimiter(players: PlayersClient, config: PlayerApiRateLimitConfig, registry?: Registry): PublicRateLimiter {
  return createPublicRateLimiter(playersRateLimitStore(players), {
    perAddress: config.PLAYER_API_RATE_LIMIT_PER_ADDRESS,
    perToken: config.PLAYER_API_RATE_LIMIT_PER_SESSION,
    windowSeconds: config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    keyPrefix: "player-api:",
    credential: "session",
    refusedCacheMax: config.RATE_LIMIT_REFUSED_CACHE_MAX,
    onRefused: refusalCounter(registry, "player_api"),
  });
}

/** The live ticket streams' settings (GatewayConfig's PLAYER_STREAM_* and PLAYER_STREAMS_PER_SESSION). */
export interface PlayerStreamSettings {
  perSession: number;
  heartbeatMs: number;
  resyncMs: number;
}

export const DEFAULT_STREAM_SETTINGS: PlayerStreamSettings = { perSession: 5, heartbeatMs: 15_000, resyncMs: 15_000 };

/** How long the display names of a company's users are kept before they are read again. */
export const DISPLAY_NAMES_TTL_MS = 60_000;

export interface PlayerSideRoutesDeps {
  players: PlayersClient;
  content: ContentClient;
  tickets: TicketsClient;
  media: MediaClient;
  playerSide: PlayerSideClient;
  /** The company's users, for the display names on agents' replies. */
  agentAccess: AgentAccessClient;
  bodyLimitBytes: number;
  sessions?: SessionCache;
  /** The abuse limits; by default none (the server passes createPlayerApiRateLimiter's). */
  limiter?: PublicRateLimiter;
  /** The live ticket streams of this gateway (nudged by tickets' NATS events); by default one of its own. */
  streams?: TicketStreamHub;
  streamSettings?: PlayerStreamSettings;
  /** The agents' presence (who is typing a reply), when the gateway runs the agents' live side. */
  presence?: PresenceBoard;
  logger: Logger;
}

/** Who asks tickets: the session, and only the identity it has proven (verifiedIdentity). */
function owner(session: PlayerSession) {
  return { companyId: session.companyId, gameId: session.gameId, sessionId: session.id, ...verifiedIdentity(session) };
}

/**
 * players answers a code sent too soon, too many codes or too many wrong entries as
 * `rate_limited`: here it becomes the player side's 429 with `Retry-After` (the wait it
 * names, else a minute).
 */
async function withRetryAfter<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isAppError(error) || error.code !== "rate_limited") throw error;
    const wait = Number(error.details?.payload?.retryAfterSeconds);
    const seconds = String(Number.isFinite(wait) && wait >= 1 ? Math.ceil(wait) : 60);
    throw new HttpProblem(429, "rate_limited", error.message, { "Retry-After": seconds });
  }
}

/** Every attachment id the player can see in these events (messages and collector answers). */
function visibleAttachmentIds(events: StreamEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if ("attachments" in event && Array.isArray(event.attachments)) for (const attachment of event.attachments) ids.add(attachment.id);
    if (event.type === "COLLECTOR_RESULT" && "fields" in event) {
      for (const field of event.fields) if (field.type === "FILE") for (const attachment of field.attachments) ids.add(attachment.id);
    }
  }
  return ids;
}

export function registerPlayerSideRoutes(api: ApiRoutes, deps: PlayerSideRoutesDeps): { pageData: PlayerPageData } {
  const { tickets, media, playerSide, content, agentAccess } = deps;
  const streams = deps.streams ?? new TicketStreamHub();
  const streamSettings = deps.streamSettings ?? DEFAULT_STREAM_SETTINGS;
  const sessions = deps.sessions ?? createSessionCache();
  const authenticate = createSessionAuth(deps.players, sessions);
  const authenticateFresh = createSessionAuth(deps.players, sessions, { fresh: true });
  const sessionOf = createSessionLoader(deps.players, sessions);
  const body = jsonBody(deps.bodyLimitBytes);

  const limits: Middleware[] = deps.limiter
    ? [deps.limiter.middleware((ctx) => {
        const code = sessionCodeOf(ctx.headers.authorization);
        return code === undefined ? undefined : hashSessionCode(code);
      })]
    : [];

  const mount = <Id extends OperationId>(operationId: Id, handler: OperationHandler<Id, PlayerSideState>, options: { freshSession?: boolean } = {}) => {
    const before = [...limits, options.freshSession ? authenticateFresh : authenticate];
    if (getOperation(operationId).requestBody !== undefined) before.push(body);
    api.operation<Id, PlayerSideState>(operationId, handler, { before });
  };
  /** The session player's ticket (404 for any other); the events and breadcrumbs RPCs then use its id. */
  const ownTicket = async (session: PlayerSession, ticketId: string) => {
    const { ticket } = await playerSide.getPlayerTicket({ owner: owner(session), ticketId });
    if (!ticket) throw new Error("tickets returned no ticket");
    return ticket;
  };

  /**
   * The display names players see on the replies of the company's users (`displayName`, as the
   * team settings set it), read once a minute per company: a changed name shows on the page
   * within that minute.
   */
  const displayNames = new CoalescingCache<ReadonlyMap<string, string>>({ max: 10_000, ttlMs: DISPLAY_NAMES_TTL_MS });
  const displayNamesOf = async (companyId: string): Promise<ReadonlyMap<string, string>> =>
    displayNames.get(companyId, async () => {
      const { users } = await agentAccess.listCompanyUsers({ companyId });
      return new Map(users.map((user) => [user.id, user.displayName || user.name]));
    });

  /**
   * The ticket's events the player may see (never a private note), in order; an agent's message
   * names its writer by display name (`agent`) when a user of the company wrote it (not an API
   * key, nor a user since removed).
   */
  const visibleEvents = async (session: PlayerSession, ticketId: string): Promise<StreamEvent[]> => {
    const { events } = await tickets.listTicketEvents({ companyId: session.companyId, ticketId });
    const visible = events.filter((event) => event.payload.case !== "privateNote");
    const writers = new Map(visible.filter((event) => event.payload.case === "agentMessage" && event.actor?.type === "user" && event.actor.id).map((event) => [event.id, event.actor!.id!]));
    const names = writers.size === 0 ? new Map<string, string>() : await displayNamesOf(session.companyId);
    return (toEventDtos(visible) as StreamEvent[]).map((event) => {
      const name = names.get(writers.get(event.id) ?? "");
      return name === undefined ? event : ({ ...event, agent: { displayName: name } } as StreamEvent);
    });
  };

  const localizationOf = (session: PlayerSession, gameLanguages: readonly string[]) => ({ language: sessionLanguage(session.language, gameLanguages), gameLanguages });

  /** The session as the page sees it (GET /player-api/session). */
  const sessionView = async (session: PlayerSession): Promise<Schemas["PlayerSession"]> => {
    const [details, { collectors }, resolved] = await Promise.all([
      content.getGame({ companyId: session.companyId, gameId: session.gameId }),
      content.listCollectors({ companyId: session.companyId, gameId: session.gameId }),
      session.environmentId ? content.resolveAnnouncement({ companyId: session.companyId, environmentId: session.environmentId }) : undefined,
    ]);
    if (!details.game) throw new Error("content returned no game");
    const l10n = localizationOf(session, details.game.languages);
    const opened = session.resource === undefined ? undefined : details.resources.find((resource) => resource.key === session.resource);
    const contactForm = collectors.find((collector) => collector.contactForm);
    const player: { id?: string; name?: string; email?: string } = {};
    if (session.player.id !== undefined) player.id = session.player.id;
    if (session.player.name !== undefined) player.name = session.player.name;
    if (session.player.email !== undefined) player.email = session.player.email;
    return {
      verification: verificationStatus(session),
      // content only stores the document's language codes.
      game: { id: details.game.id, name: details.game.name, languages: details.game.languages as Schemas["Language"][] },
      language: l10n.language as Schemas["Language"],
      environment: details.environments.find((environment) => environment.id === session.environmentId)?.name ?? null,
      expiresAt: new Date(session.expiresAt).toISOString(),
      player,
      announcement: toPlayerAnnouncementDto(resolved?.announcement, l10n),
      resources: details.resources.map((resource) => toResourceSummaryDto(resource, l10n)),
      resource: opened ? toPlayerResourceDto(opened, l10n) : null,
      contactForm: contactForm ? toCollectorDefinitionDto(contactForm) : null,
      branding: toPlayerBrandingDto(details.game.id, details.branding),
    };
  };

  /** The player's conversations (GET /player-api/tickets). */
  const ticketList = async (session: PlayerSession): Promise<{ tickets: Schemas["PlayerTicketSummary"][] }> => {
    const response = await playerSide.listPlayerTickets({ owner: owner(session) });
    const activity = new Map(response.activity.map((item) => [item.ticketId, item]));
    return { tickets: response.tickets.map((ticket) => toPlayerTicketSummaryDto(ticket, activity.get(ticket.id))) };
  };

  mount("getPlayerSession", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, await sessionView(ctx.state.session));
  });

  mount("getPlayerResource", async (ctx) => {
    const { session } = ctx.state;
    const details = await content.getGame({ companyId: session.companyId, gameId: session.gameId });
    const resource = details.resources.find((candidate) => candidate.key === ctx.state.validated.params.key);
    if (!resource || !details.game) throw notFound("resource not found");
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, toPlayerResourceDto(resource, localizationOf(session, details.game.languages)));
  });

  /** The game's articles and how the session sees them (each in the one language the page shows it in). */
  const articlesFor = async (session: PlayerSession) => {
    const details = await content.getGame({ companyId: session.companyId, gameId: session.gameId });
    if (!details.game) throw new Error("content returned no game");
    const l10n = localizationOf(session, details.game.languages);
    return { resources: details.resources, byKey: new Map(details.resources.map((resource) => [resource.key, resource])), l10n, shown: shownArticles(details.resources, l10n) };
  };

  mount("searchPlayerResources", async (ctx) => {
    const { session } = ctx.state;
    const { byKey, l10n, shown } = await articlesFor(session);
    const { hits } = await content.searchArticles({ companyId: session.companyId, gameId: session.gameId, query: ctx.state.validated.query.q, shown });
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, {
      results: hits.flatMap((hit) => {
        const resource = byKey.get(hit.key);
        return resource ? [toPlayerSearchResultDto(resource, hit, l10n)] : [];
      }),
    });
  });

  mount("listPlayerRelatedResources", async (ctx) => {
    const { session } = ctx.state;
    const { byKey, l10n, shown } = await articlesFor(session);
    const key = ctx.state.validated.params.key;
    const article = shown.find((candidate) => candidate.key === key);
    if (!byKey.has(key)) throw notFound("resource not found");
    const { keys } = article
      ? await content.listRelatedArticles({ companyId: session.companyId, gameId: session.gameId, key, language: article.language, shown })
      : { keys: [] };
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, { resources: keys.flatMap((related) => (byKey.has(related) ? [toResourceSummaryDto(byKey.get(related)!, l10n)] : [])) });
  });

  mount("sendPlayerResourceFeedback", async (ctx) => {
    const { session } = ctx.state;
    const { l10n, shown } = await articlesFor(session);
    const key = ctx.state.validated.params.key;
    await content.recordArticleFeedback({
      companyId: session.companyId,
      gameId: session.gameId,
      key,
      sessionId: session.id,
      language: shown.find((article) => article.key === key)?.language ?? l10n.language,
      helpful: ctx.state.validated.body.helpful,
    });
    respond(ctx, 204, "");
  });

  mount("streamPlayerTicketEvents", async (ctx) => {
    const { session } = ctx.state;
    const ticketId = ctx.state.validated.params.ticketId;
    const read = async (): Promise<StreamSnapshot> => {
      const ticket = await ownTicket(session, ticketId);
      const events = await visibleEvents(session, ticket.id);
      return { events, status: { status: ticketStatus(ticket), resolutionType: ticket.resolutionType ?? null, csatScore: ticket.csatScore ?? null } };
    };
    const initial = await read();
    const lastEventId = ctx.get("Last-Event-ID").trim();
    const after = lastEventId === "" ? undefined : lastEventId;
    if (after !== undefined && !initial.events.some((event) => event.id === after)) {
      throw validationError([{ path: "/header/Last-Event-ID", message: "is not an event of the ticket" }]);
    }
    // The session's code is known (the session check passed); its hash names the session's slots.
    const sessionKey = hashSessionCode(sessionCodeOf(ctx.headers.authorization)!);
    if (!streams.acquire(sessionKey, streamSettings.perSession)) {
      const seconds = Math.max(1, Math.ceil(streamSettings.heartbeatMs / 1000));
      throw new HttpProblem(429, "rate_limited", `Too many open streams for this session (at most ${streamSettings.perSession}); retry in ${seconds} seconds`, {
        "Retry-After": String(seconds),
      });
    }
    const stream = openTicketStream({
      hub: streams,
      ticketId,
      read,
      initial,
      after,
      heartbeatMs: streamSettings.heartbeatMs,
      resyncMs: streamSettings.resyncMs,
      endsAt: session.expiresAt,
      onClose: () => streams.release(sessionKey),
      ...(deps.presence
        ? {
            typing: (listener: (agents: string[]) => void) =>
              deps.presence!.listen(session.companyId, (presence) => {
                if (presence.ticketId === ticketId.toLowerCase()) listener(presence.agents.filter((agent) => agent.state === "typing").map((agent) => agent.displayName));
              }),
          }
        : {}),
      logger: deps.logger,
    });
    answerEventStream(ctx, stream);
  });

  mount("getPlayerAttachment", async (ctx) => {
    const { session } = ctx.state;
    const { ticketId, attachmentId } = ctx.state.validated.params;
    const ticket = await ownTicket(session, ticketId);
    // Only what the player sees in the conversation: never a private note's attachment.
    if (!visibleAttachmentIds(await visibleEvents(session, ticket.id)).has(attachmentId)) throw notFound("attachment not found");
    const { downloadUrl } = await media.getAttachmentDownload({ companyId: session.companyId, attachmentId });
    ctx.set("Location", downloadUrl);
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 307, "");
    ctx.remove("Content-Type");
  });

  mount("listPlayerTickets", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, await ticketList(ctx.state.session));
  });

  mount("markPlayerTicketRead", async (ctx) => {
    await playerSide.markPlayerTicketRead({ owner: owner(ctx.state.session), ticketId: ctx.state.validated.params.ticketId });
    respond(ctx, 204, "");
  });

  mount("createPlayerTicket", async (ctx) => {
    const { session } = ctx.state;
    const request = ctx.state.validated.body;
    // The article the player read before asking, named by its title as the player saw it.
    let article: { articleKey: string; articleTitle: string } | undefined;
    if (request.article !== undefined) {
      const { byKey, l10n } = await articlesFor(session);
      const resource = byKey.get(request.article);
      if (!resource) throw notFound("resource not found");
      article = { articleKey: resource.key, articleTitle: toPlayerResourceDto(resource, l10n).title };
    }
    const response = await playerSide.createPlayerTicket({
      ...article,
      companyId: session.companyId,
      gameId: session.gameId,
      environmentId: session.environmentId || undefined,
      message: request.message,
      attachments: request.attachments ?? [],
      language: session.language,
      player: session.player,
      tags: session.tags,
      fields: session.fields,
      sessionId: session.id,
    });
    respond(ctx, 200, { ticketId: response.ticketId, runningId: Number(response.runningId) });
  }, { freshSession: true });

  mount("sendPlayerMessage", async (ctx) => {
    const request = ctx.state.validated.body;
    const response = await playerSide.addPlayerMessage({
      owner: owner(ctx.state.session),
      ticketId: ctx.state.validated.params.ticketId,
      message: request.message,
      attachments: request.attachments ?? [],
    });
    if (!response.ticket) throw new Error("tickets returned no ticket");
    respond(ctx, 200, { eventId: response.eventId, status: ticketStatus(response.ticket) });
  });

  mount("listPlayerTicketEvents", async (ctx) => {
    const ticket = await ownTicket(ctx.state.session, ctx.state.validated.params.ticketId);
    const events = await visibleEvents(ctx.state.session, ticket.id);
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, { events });
  });

  mount("submitPlayerCsat", async (ctx) => {
    const request = ctx.state.validated.body;
    await playerSide.submitCsat({ owner: owner(ctx.state.session), ticketId: ctx.state.validated.params.ticketId, score: request.score, review: request.review ?? undefined });
    respond(ctx, 200, { success: true });
  });

  mount("addPlayerBreadcrumbs", async (ctx) => {
    const request = ctx.state.validated.body;
    const ticket = await ownTicket(ctx.state.session, ctx.state.validated.params.ticketId);
    const clientClockOffsetMs = request.clientSentAt === undefined ? null : Date.parse(request.clientSentAt) - ctx.state.receivedAt;
    const { added } = await tickets.addTicketBreadcrumbs({
      companyId: ctx.state.session.companyId,
      ticketId: ticket.id,
      breadcrumbs: toBreadcrumbMessages(request.breadcrumbs),
      clientClockOffsetMs: clientClockOffsetMs === null ? undefined : BigInt(clientClockOffsetMs),
    });
    respond(ctx, 200, { added, clientClockOffsetMs });
  });

  mount("addPlayerCollectorResult", async (ctx) => {
    const request = ctx.state.validated.body;
    const { session } = ctx.state;
    // The definition: a collector of the session's game (content answers not_found for another company's).
    let collector;
    try {
      ({ collector } = await content.getCollector({ companyId: session.companyId, collectorId: request.collectorId }));
    } catch (error) {
      if (!isAppError(error) || error.code !== "not_found") throw error;
    }
    if (!collector || collector.gameId !== session.gameId) throw validationError([{ path: "/collectorId", message: "is not a collector of the game" }]);
    const issues = checkCollectorAnswers(collector, request.fields);
    if (issues.length > 0) throw validationError(issues);
    const response = await playerSide.addCollectorResult({
      owner: owner(session),
      ticketId: ctx.state.validated.params.ticketId,
      collectorId: collector.id,
      title: collector.title,
      fields: toCollectorFieldMessages(withDefinitionLabels(collector, request.fields)),
    });
    if (!response.ticket) throw new Error("tickets returned no ticket");
    respond(ctx, 200, { eventId: response.eventId, resultId: response.resultId, status: ticketStatus(response.ticket) });
  });

  mount("createPlayerAttachment", async (ctx) => {
    const { session } = ctx.state;
    const instruction = await media.createAttachmentUpload(
      toCreateAttachmentUploadRequest(session.companyId, ctx.state.validated.body, { gameId: session.gameId, playerId: session.player.id, sessionId: session.id }),
    );
    respond(ctx, 200, toUploadInstructionDto(instruction));
  }, { freshSession: true });

  // Proving the session's email with a one-time code: players sends it and checks it; an
  // accepted code marks the session, and this replica forgets its copy at once (the others on
  // players.session.verified).
  mount("startPlayerEmailVerification", async (ctx) => {
    const code = sessionCodeOf(ctx.headers.authorization)!;
    const sent = await withRetryAfter(() => deps.players.startEmailVerification({ sessionCode: code }));
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, {
      sentTo: sent.maskedEmail,
      expiresAt: sent.expiresAt ? timestampDate(sent.expiresAt).toISOString() : new Date().toISOString(),
      sendsLeft: sent.sendsLeft,
    });
  });

  mount("confirmPlayerEmailVerification", async (ctx) => {
    const code = sessionCodeOf(ctx.headers.authorization)!;
    const { session } = await withRetryAfter(() => deps.players.confirmEmailVerification({ sessionCode: code, code: ctx.state.validated.body.code }));
    if (!session) throw new Error("players returned no session");
    sessions.invalidate(session.id);
    const verified = toPlayerSession(session, Date.now());
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 200, { verification: verificationStatus(verified) });
  });

  /**
   * The session and the conversations for the page served with a fresh code (GET /support/?sid=),
   * as GET /player-api/session and /player-api/tickets answer them, counted against the same
   * limits as those two requests would be; undefined for a code that is not live.
   */
  const pageData: PlayerPageData = async (ctx, code) => {
    let data: { session: Schemas["PlayerSession"]; tickets: Schemas["PlayerTicketSummary"][] } | undefined;
    const read = async () => {
      const session = await sessionOf(code);
      if (!session) return;
      const [view, { tickets: list }] = await Promise.all([sessionView(session), ticketList(session)]);
      data = { session: view, tickets: list };
    };
    if (deps.limiter) await deps.limiter.middleware(() => hashSessionCode(code))(ctx as Parameters<Middleware>[0], read);
    else await read();
    return data;
  };
  return { pageData };
}
