// players.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// players/player.ts and sessions/session.ts, SQL in the repositories. Every player request is
// scoped by its company_id; sessions are scoped by their environment token or code.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { isUuid, validationError } from "@support/errors";
import { idempotent } from "@support/idempotency";
import { PlayersService, type SessionMetadata as SessionMetadataMessage } from "@support/proto";
import type { DeletionSchedule } from "./deletion/deletion.ts";
import { cancelDeletion, deletePlayerNow, listScheduledDeletions, pendingDeletionOf, scheduleDeletion, type DeletionContext } from "./deletion/deletion.service.ts";
import type { AuditOrigin } from "./players/player.audit.ts";
import type { Player } from "./players/player.ts";
import { blockPlayer, findPlayer, getPlayer, listBlockedPlayers, resolvePlayer, setPlayerInfo, unblockPlayer } from "./players/player.service.ts";
import { addRateLimitUsage, consumeRateLimit } from "./rate-limits/rate-limit.service.ts";
import type { SessionMetadata, SupportSession } from "./sessions/session.ts";
import { confirmEmailVerification, startEmailVerification, type EmailVerificationContext } from "./sessions/email-verification.service.ts";
import { createSupportSession, getSupportSession } from "./sessions/session.service.ts";
import { checkMetadataToken } from "./sessions/metadata-token.ts";
import { parseSignedMetadataClaim } from "./sessions/session.ts";
import type { PlayersDeps } from "./context.ts";

export function playerMessage(player: Player) {
  return {
    id: player.id,
    companyId: player.companyId,
    gameId: player.gameId,
    externalId: player.externalId ?? undefined,
    name: player.name ?? undefined,
    email: player.email ?? undefined,
    tier: player.tier ?? undefined,
    blocked: player.blocked,
    blockedAt: player.blockedAt ? timestampFromDate(player.blockedAt) : undefined,
  };
}

/** The acting user and their address, when the gateway's settings routes make the call; a malformed user id is refused. */
function originOf(req: { actorUserId?: string | undefined; clientAddress?: string | undefined }): AuditOrigin {
  if (req.actorUserId !== undefined && !isUuid(req.actorUserId)) throw validationError([{ path: "/actorUserId", message: "must be the id of the acting user" }]);
  return { actorUserId: req.actorUserId?.toLowerCase(), clientAddress: req.clientAddress };
}

/** Unsigned metadata of a request as the plain JSON the session rules read. */
function metadataInput(metadata: SessionMetadataMessage | undefined): Record<string, unknown> {
  if (!metadata) return {};
  const input: Record<string, unknown> = {};
  if (metadata.player) {
    const { id, name, email, tier } = metadata.player;
    input.player = { id, name, email, tier };
  }
  if (metadata.tags.length > 0) input.tags = metadata.tags;
  if (metadata.fields) input.fields = metadata.fields;
  return input;
}

function metadataMessage(metadata: SessionMetadata) {
  return { player: metadata.player, tags: metadata.tags ?? [], fields: (metadata.fields ?? {}) as JsonObject };
}

function sessionMessage(session: SupportSession) {
  return {
    id: session.id,
    companyId: session.companyId,
    gameId: session.gameId,
    environmentId: session.environmentId,
    language: session.language ?? undefined,
    resource: session.resource ?? undefined,
    metadata: metadataMessage(session.metadata),
    verification: session.verification,
    emailVerifiedAt: session.emailVerifiedAt ? timestampFromDate(session.emailVerifiedAt) : undefined,
    createdAt: timestampFromDate(session.createdAt),
    expiresAt: timestampFromDate(session.expiresAt),
  };
}

function pendingDeletionMessage(schedule: DeletionSchedule) {
  return {
    scheduleId: schedule.id,
    requestedByType: schedule.requestedBy.type,
    requestedById: schedule.requestedBy.id ?? undefined,
    scheduledAt: timestampFromDate(schedule.createdAt),
    dueAt: timestampFromDate(schedule.dueAt),
  };
}

export function registerRoutes(router: ConnectRouter, deps: PlayersDeps, sessions: EmailVerificationContext, deletion: DeletionContext): void {
  const { db } = deps;
  router.service(PlayersService, {
    resolvePlayer: async (req) => {
      const { player, created } = await resolvePlayer(db, req);
      return { player: playerMessage(player), created };
    },

    findPlayer: async (req) => {
      const player = await findPlayer(db, req);
      return { player: player && playerMessage(player) };
    },

    getPlayer: async (req) => ({ player: playerMessage(await getPlayer(db, req.companyId, req.playerId)) }),

    setPlayerInfo: async (req) => ({ player: playerMessage(await setPlayerInfo(db, req.companyId, req.playerId, req)) }),

    blockPlayer: async (req) => ({ player: playerMessage((await blockPlayer(db, req, originOf(req))).player) }),

    unblockPlayer: async (req) => ({ player: playerMessage(await unblockPlayer(db, req, originOf(req))) }),

    createSupportSession: async (req) => {
      const { session, code } = await createSupportSession(sessions, {
        token: req.token,
        language: req.language,
        resource: req.resource,
        signedMetadataToken: req.signedMetadataToken,
        metadata: metadataInput(req.metadata),
        fieldsFromQuery: req.fieldsFromQuery,
      });
      return { session: sessionMessage(session), sessionCode: code };
    },

    getSupportSession: async (req) => ({ session: sessionMessage(await getSupportSession(db, req.sessionCode)) }),

    checkMetadataToken: async (req) => {
      const verdict = await checkMetadataToken(req.signedMetadataToken, req.jwks, parseSignedMetadataClaim);
      if (!verdict.verified) return { verified: false, reason: verdict.reason, message: verdict.message };
      return {
        verified: true, kid: verdict.kid, expiresAt: timestampFromDate(verdict.expiresAt), metadata: JSON.parse(JSON.stringify(verdict.metadata)) as JsonObject,
      };
    },

    startEmailVerification: async (req) => {
      const sent = await startEmailVerification(sessions, req.sessionCode);
      return { maskedEmail: sent.maskedEmail, expiresAt: timestampFromDate(sent.expiresAt), sendsLeft: sent.sendsLeft };
    },

    confirmEmailVerification: async (req) => ({ session: sessionMessage(await confirmEmailVerification(sessions, req.sessionCode, req.code)) }),

    consumeRateLimit: async (req) => {
      const decision = await consumeRateLimit(db, { windowSeconds: req.windowSeconds, buckets: req.buckets.map(({ key, limit }) => ({ key, limit })) });
      return { allowed: decision.allowed, exceededKey: decision.exceededKey, retryAfterSeconds: decision.retryAfterSeconds };
    },

    addRateLimitUsage: async (req) => {
      const usages = req.usages.map(({ key, windowStart, delta }) => ({ key, windowStart: Number(windowStart), delta }));
      const totals = await addRateLimitUsage(db, { windowSeconds: req.windowSeconds, usages });
      return { totals: totals.map(({ key, windowStart, total }) => ({ key, windowStart: BigInt(windowStart), total: BigInt(total) })) };
    },

    getPlayerDeletion: async (req) => {
      const schedule = await pendingDeletionOf(db, req.companyId, req.playerId);
      return schedule ? { deletion: pendingDeletionMessage(schedule) } : {};
    },

    cancelPlayerDeletion: async (req) => {
      if (!isUuid(req.actingUserId)) throw validationError([{ path: "/actingUserId", message: "must be the id of the user who cancels" }]);
      const schedule = await cancelDeletion(db, {
        companyId: req.companyId, playerId: req.playerId, cancelledBy: { type: "user", id: req.actingUserId.toLowerCase() }, clientAddress: req.clientAddress,
      });
      return { deletion: pendingDeletionMessage(schedule) };
    },

    // With an Idempotency-Key, the use case runs in the transaction that records the key.
    schedulePlayerDeletion: (req, context) => idempotent(db, req, context, async (handle) => {
      const { schedule, created } = await scheduleDeletion({ ...deletion, db: handle }, {
        companyId: req.companyId,
        playerId: req.playerId,
        requestedBy: { type: "api_key", id: req.apiKeyId ?? null },
      });
      return { scheduleId: schedule.id, dueAt: timestampFromDate(schedule.dueAt), created };
    }),

    // An erasure commits step by step (so that it resumes after a failure) and asking again
    // answers with the same erasure: it runs outside the key's transaction, which records its answer after it.
    deletePlayer: (req, context) => idempotent(db, req, context, async () => {
      const origin = originOf(req);
      const erasure = await deletePlayerNow(deletion, {
        companyId: req.companyId,
        playerId: req.playerId,
        // An admin in the settings, else the API key (or another caller without one).
        requestedBy: origin.actorUserId ? { type: "user", id: origin.actorUserId } : { type: "api_key", id: req.apiKeyId ?? null },
        clientAddress: origin.clientAddress,
      });
      // The erasure is committed; its events are published before the answer when NATS allows
      // (otherwise the relay publishes them as usual, and new data of the player is refused anyway).
      await deletion.publishNow?.().catch((error: unknown) => deps.logger.warn({ err: error }, "erasure events not published before the answer"));
      return { erasureId: erasure.id };
    }, { sameTransaction: false }),

    listBlockedPlayers: async (req) => {
      const page = await listBlockedPlayers(db, { companyId: req.companyId, gameId: req.gameId, pageSize: req.pageSize, cursor: req.cursor });
      return { players: page.players.map(playerMessage), nextCursor: page.nextCursor ?? "" };
    },

    listScheduledDeletions: async (req) => {
      const page = await listScheduledDeletions(db, { companyId: req.companyId, gameId: req.gameId, pageSize: req.pageSize, cursor: req.cursor });
      return {
        deletions: page.deletions.map(({ schedule, player }) => ({ deletion: pendingDeletionMessage(schedule), player: playerMessage(player) })),
        nextCursor: page.nextCursor ?? "",
      };
    },
  });
}
