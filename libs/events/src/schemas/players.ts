// Events of the players service: a player's changes, web support sessions, and each stage of a
// player's deletion. Email addresses travel only in `created` and `updated`, where a consumer
// needs the address; the deletion events carry ids, times and counts only. A call that changes
// nothing publishes nothing.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { DateTime, Nullable, OneOf, Requester, Tier, Uuid } from "./common.ts";
import { auditEntryProperties } from "./content.ts";

const player = {
  playerId: Uuid("servicePlayerId of the public API"),
  gameId: Uuid(),
  externalId: Nullable(Type.String(), "The game's own player id (public playerId); null for email players"),
};
const attributes = {
  name: Nullable(Type.String()),
  email: Nullable(Type.String(), "As the player gave it; matched case-insensitively"),
  tier: Nullable(Tier, "An identified player gets 1 unless a tier was given"),
};

export const playerCreated = defineEvent({
  type: "players.player.created",
  description:
    "A player was first seen (ResolvePlayer) or blocked before its first contact (BlockPlayer). A player blocked before its first contact gets `created` (with `blocked: true`) then `players.player.blocked`, in that order and in one transaction.",
  version: 1,
  schema: Type.Object({ ...player, ...attributes, blocked: Type.Boolean() }),
});

export const playerUpdated = defineEvent({
  type: "players.player.updated",
  description: "ResolvePlayer or SetPlayerInfo changed the player's name, email or tier; carries the attributes after the change.",
  version: 1,
  schema: Type.Object({ ...player, ...attributes }),
});

export const playerBlocked = defineEvent({
  type: "players.player.blocked",
  description: "An operator blocked the player; its new tickets are refused from now on (400 `PLAYER_BLOCKED`).",
  version: 1,
  schema: Type.Object(player),
});

export const playerUnblocked = defineEvent({
  type: "players.player.unblocked",
  description: "An operator lifted the block.",
  version: 1,
  schema: Type.Object(player),
});

export const sessionCreated = defineEvent({
  type: "players.session.created",
  description:
    "A web support session was created (`GET /support/sessions/redirect` or `POST /support/sessions`). Carries ids and settings, never the session code (the player's credential) nor the player's name or email.",
  version: 1,
  schema: Type.Object({
    sessionId: Uuid("The session's id (not its code)"),
    gameId: Uuid(),
    environmentId: Uuid("The game environment whose public token created the session"),
    externalPlayerId: Nullable(Type.String(), "The game's own player id of the session's player, if any"),
    verification: OneOf(
      ["verified", "unverified", "anonymous"],
      "verified: the player comes from signed metadata; unverified: a player id without signature; anonymous: no player id",
    ),
    language: Nullable(Type.String(), "Language code asked for, if any"),
    resource: Nullable(Type.String(), "Key of the game resource to open, if any"),
    expiresAt: DateTime(),
  }),
});

export const sessionVerified = defineEvent({
  type: "players.session.verified",
  description:
    "The player proved the session's email address with an emailed code (`POST /player-api/verification/email/confirm`); the session now sees that email's tickets. Ids only: never the address or the code. Every gateway drops its cached copy of the session.",
  version: 1,
  schema: Type.Object({
    sessionId: Uuid("The session's id (not its code)"),
    gameId: Uuid(),
    emailVerifiedAt: DateTime("When the code was accepted"),
  }),
});

export const sessionEnded = defineEvent({
  type: "players.session.ended",
  description:
    "Sessions stopped working before their expiry: their player's erasure deleted them (published beside `players.player.deleted`). Every gateway drops them from its cache at once, so their codes answer 403 everywhere.",
  version: 1,
  schema: Type.Object({
    sessionIds: Type.Array(Uuid(), { minItems: 1 }),
    reason: OneOf(["player_erased"]),
  }),
});

export const deletionScheduled = defineEvent({
  type: "players.deletion.scheduled",
  description:
    "A deletion of the player's data was scheduled (`POST /player/schedule-deletion`); the deletion consumer holds this message back until `dueAt`.",
  version: 1,
  schema: Type.Object({
    scheduleId: Uuid("The player's one pending schedule"),
    playerId: Uuid("servicePlayerId of the public API"),
    gameId: Uuid(),
    dueAt: DateTime("When the erasure runs (PLAYER_DELETION_DELAY_SECONDS after scheduling)"),
  }),
});

const deletionCancelledV1 = Type.Object({ scheduleId: Uuid(), playerId: Uuid(), gameId: Uuid(), cancelledBy: Requester });

export const deletionCancelled = defineEvent({
  type: "players.deletion.cancelled",
  description:
    "A scheduled deletion was cancelled: by an operator (`pnpm admin players cancel-deletion`) or by a user of the company in the support application. Version 2 added `user` to `cancelledBy.type`; version 1 (no user) is read as version 2.",
  version: 2,
  schema: Type.Object({
    scheduleId: Uuid(),
    playerId: Uuid(),
    gameId: Uuid(),
    cancelledBy: Type.Object({
      type: OneOf(["api_key", "operator", "user"]),
      id: Nullable(Type.String(), "The API key's or the user's id; null for an operator"),
    }),
  }),
  earlier: { 1: { schema: deletionCancelledV1, upcast: (data) => data as Static<typeof deletionCancelledV1> } },
});

const trigger = OneOf(["scheduled", "immediate"], "scheduled: a schedule became due (POST /player/schedule-deletion); immediate: DELETE /player");

export const deletionStarted = defineEvent({
  type: "players.deletion.started",
  description: "The erasure of the player's data started (a schedule became due, or DELETE /player); redelivered until the erasure completes.",
  version: 1,
  schema: Type.Object({
    erasureId: Uuid("The erasure (and audit) record"),
    playerId: Uuid(),
    gameId: Uuid(),
    trigger,
  }),
});

const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

/** players.player.deleted's fields, in their order, with who asked as the version reads it. */
const playerDeletedOf = <R extends TSchema>(requestedBy: R) =>
  Type.Object({
    playerId: Uuid(),
    gameId: Uuid(),
    erasureId: Uuid(),
    trigger,
    requestedBy,
    requestedAt: DateTime("When the deletion was asked for (scheduling time for a scheduled one)"),
    completedAt: DateTime(),
    counts: Type.Object({ tickets: Type.Optional(Counts), media: Type.Optional(Counts), players: Type.Optional(Counts) }),
  });
const playerDeletedV1 = playerDeletedOf(Requester);

export const playerDeleted = defineEvent({
  type: "players.player.deleted",
  description:
    "The erasure completed: the player's tickets, attachments, sessions and record are gone in every service. A consumer that keeps copies of a player's data deletes them now. `counts` holds how many records each step deleted: `tickets` (tickets, events, breadcrumbs, tags, fieldValues), `media` (attachments, objects included), `players` (players, sessions, schedules). Version 2 added `user` to `requestedBy.type` (an admin's \"Delete now\" in the settings); version 1 is read as version 2.",
  version: 2,
  schema: playerDeletedOf(
    Type.Object({
      type: OneOf(["api_key", "operator", "user"]),
      id: Nullable(Type.String(), "The API key's or the user's id; null for an operator"),
    }),
  ),
  earlier: { 1: { schema: playerDeletedV1, upcast: (data) => data as Static<typeof playerDeletedV1> } },
});

export const playersAuditRecorded = defineEvent({
  type: "players.audit.recorded",
  description:
    "A change made by a user of the company in the support application (the settings' Players page, or a scheduled deletion cancelled from a ticket): a player blocked or unblocked, a scheduled deletion cancelled, an immediate deletion started. Written in the change's transaction; content records it in the company's audit log once per event id (and publishes content.audit.recorded for it). It names players by ids only, never by an email address.",
  version: 1,
  schema: Type.Object({
    ...auditEntryProperties,
    action: Type.String({ pattern: "^player\\.[a-z_]+$", description: "`player.blocked`, `player.unblocked`, `player.deletion_cancelled`, `player.deleted`" }),
    target: Type.Object({ type: Type.Literal("player"), id: Uuid("servicePlayerId") }, { description: "The player" }),
  }),
});

export const playersEvents = [
  playerCreated, playerUpdated, playerBlocked, playerUnblocked, sessionCreated, sessionVerified, sessionEnded,
  deletionScheduled, deletionCancelled, deletionStarted, playerDeleted, playersAuditRecorded,
] as const;
