// The support application's live side: GET /agent-api/stream (one Server-Sent Events stream per
// open console: the changes of the tickets of the user's games and who is on which ticket) and
// POST /agent-api/tickets/{ticketId}/presence (the console saying that its user views a ticket,
// types a reply there, or left it). Any gateway replica serves either: the changes come from the
// tickets service's stream on JetStream, presence from every replica over NATS.
import { notFound } from "@support/errors";
import { LRUCache } from "lru-cache";
import type { Logger } from "@support/logging";
import { openAgentStream } from "../agent-api/agent-stream.ts";
import type { AgentLiveFeed } from "../agent-api/live-feed.ts";
import type { PresenceBoard } from "../agent-api/presence.ts";
import { seesGame, type AgentSessionCache, type AgentSessionState } from "../agent-api/sessions.ts";
import type { TicketsClient } from "../clients.ts";
import { HttpProblem } from "../middleware/errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { answerEventStream } from "./event-stream.ts";

export interface AgentLiveSettings {
  /** A comment line this often keeps proxies from closing an idle stream; the session is checked then too. */
  heartbeatMs: number;
  /** Most open streams per user on one gateway (a console opens one; a few tabs are fine). */
  streamsPerUser: number;
}

export interface AgentLiveRoutesDeps {
  /** Undefined without NATS: the stream and presence then answer 503. */
  feed: AgentLiveFeed | undefined;
  presence: PresenceBoard | undefined;
  tickets: TicketsClient;
  sessions: AgentSessionCache;
  guards: AgentApiGuards;
  settings: AgentLiveSettings;
  bodyLimitBytes: number;
  logger: Logger;
}

/** `Last-Event-ID` (sent by EventSource on a reconnect) or `?lastEventId=`: a stream sequence. */
function lastEventIdOf(header: string | undefined, query: string | undefined): number | undefined {
  const value = header ?? query;
  if (value === undefined || value === "") return undefined;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(value)) throw new HttpProblem(400, "invalid_argument", "Last-Event-ID must be the id of an event of this stream");
  return Number(value);
}

const liveUnavailable = () => new HttpProblem(503, "unavailable", "Live updates are not available on this gateway (no message bus); retry in 30 seconds", { "Retry-After": "30" });

/** The open streams of this gateway, to end them at shutdown (clients resume with Last-Event-ID). */
export interface AgentLiveStreams {
  closeAll(): void;
}

export function registerAgentLiveRoutes(api: ApiRoutes, deps: AgentLiveRoutesDeps): AgentLiveStreams {
  const open = new Map<string, number>();
  const streams = new Set<{ close(): void }>();
  // A ticket never moves to another game or company: its game is remembered for presence.
  const gameOfTicket = new LRUCache<string, string>({ max: 50_000, ttl: 10 * 60_000 });

  api.operation<"streamAgentChanges", AgentSessionState>(
    "streamAgentChanges",
    async (ctx) => {
      const { feed, presence } = deps;
      if (!feed || !presence) throw liveUnavailable();
      const session = ctx.state.agentSession;
      const lastEventId = lastEventIdOf(ctx.get("Last-Event-ID") || undefined, typeof ctx.query.lastEventId === "string" ? ctx.query.lastEventId : undefined);
      const userId = session.user.id;
      const count = open.get(userId) ?? 0;
      if (count >= deps.settings.streamsPerUser) {
        throw new HttpProblem(429, "rate_limited", `Too many open streams for this user (at most ${deps.settings.streamsPerUser}); retry in 30 seconds`, { "Retry-After": "30" });
      }
      open.set(userId, count + 1);
      const stream = openAgentStream({
        feed,
        presence,
        companyId: session.companyId,
        canSee: (gameId) => seesGame(session, gameId),
        lastEventId,
        heartbeatMs: deps.settings.heartbeatMs,
        // Ended elsewhere (sign-out, sign-out everywhere, deactivation: every replica hears it)?
        // The stream does not move the idle clock: it ends at the idle end known when it opened,
        // and the console reconnects through a fresh session check.
        stillSignedIn: async () => !deps.sessions.isStale(session),
        endsAt: Math.min(session.expiresAt, session.idleExpiresAt),
        onClose: () => {
          streams.delete(stream);
          const left = (open.get(userId) ?? 1) - 1;
          if (left <= 0) open.delete(userId);
          else open.set(userId, left);
        },
        logger: deps.logger,
      });
      streams.add(stream);
      answerEventStream(ctx, stream);
    },
    { before: deps.guards.read },
  );

  api.operation<"announceAgentPresence", AgentSessionState>(
    "announceAgentPresence",
    async (ctx) => {
      const { presence } = deps;
      if (!presence) throw liveUnavailable();
      const session = ctx.state.agentSession;
      const { ticketId } = ctx.state.validated.params;
      const { state } = ctx.state.validated.body;
      const key = `${session.companyId}:${ticketId}`;
      let gameId = gameOfTicket.get(key);
      if (gameId === undefined) {
        const { ticket } = await deps.tickets.getTicket({ companyId: session.companyId, ticketId });
        gameId = ticket?.gameId;
        if (gameId !== undefined) gameOfTicket.set(key, gameId);
      }
      if (gameId === undefined || !seesGame(session, gameId)) throw notFound("ticket not found");
      presence.announce({ companyId: session.companyId, gameId, ticketId, userId: session.user.id, displayName: session.user.displayName, state });
      respond(ctx, 204, "");
    },
    { before: [...deps.guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  return {
    closeAll() {
      for (const stream of [...streams]) stream.close();
    },
  };
}
