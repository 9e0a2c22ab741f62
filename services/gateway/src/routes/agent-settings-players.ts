// /agent-api/settings/games/{gameId}/blocked-players..., .../player-erasures,
// /agent-api/settings/scheduled-deletions... and /agent-api/settings/players/immediate-deletion:
// the settings' Players page, for the company's admins. The players service owns players, blocks,
// schedules and erasures, and applies its rules (the allowImmediateDeletion check included); the
// gateway checks that the user is an admin (agents get 403 before anything is read), that the
// game is the company's (content), and passes the admin and the client address along, so that the
// players service records each change in the company's audit log (players.audit.recorded,
// recorded by content).
import type { Context } from "koa";
import type { Player, ScheduledDeletion } from "@support/proto";
import { notFound, permissionDenied, validationError } from "@support/errors";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { ContentClient, PlayersClient } from "../clients.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { DELETE_PLAYER_TIMEOUT_MS } from "./players.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsPlayersRoutesDeps {
  players: PlayersClient;
  content: ContentClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

/** The answer of DELETE /player and of "Delete now" when the company does not allow it. */
const NOT_ALLOWED = "Immediate deletion of player data is not enabled for this company";

export function settingsPlayerDto(player: Player): Schemas["AgentSettingsPlayer"] {
  return {
    servicePlayerId: player.id,
    gameId: player.gameId,
    playerId: player.externalId ?? null,
    email: player.email ?? null,
    name: player.name ?? null,
    blocked: player.blocked,
    blockedAt: isoTimestampOrNull(player.blockedAt),
  };
}

function scheduledDeletionDto(entry: ScheduledDeletion): Schemas["AgentSettingsScheduledDeletion"] {
  const deletion = entry.deletion!;
  return {
    scheduleId: deletion.scheduleId,
    player: settingsPlayerDto(entry.player!),
    requestedBy: { type: deletion.requestedByType as Schemas["AgentSettingsScheduledDeletion"]["requestedBy"]["type"], id: deletion.requestedById ?? null },
    scheduledAt: isoTimestamp(deletion.scheduledAt, "players", "deletion scheduledAt"),
    dueAt: isoTimestamp(deletion.dueAt, "players", "deletion dueAt"),
  };
}

/** The player a request names: the game's player id or an email, exactly one (the API's names at their paths). */
function playerKeyOf(body: Schemas["AgentSettingsPlayerKey"]): { externalId: string } | { email: string } {
  const playerId = body.playerId?.trim();
  const email = body.email?.trim();
  if ((playerId === undefined) === (email === undefined)) {
    throw validationError([{ path: playerId === undefined ? "/playerId" : "/email", message: "give exactly one of playerId and email" }], "Name the player by playerId or by email");
  }
  return playerId !== undefined ? { externalId: playerId } : { email: email! };
}

export function registerAgentSettingsPlayersRoutes(api: ApiRoutes, deps: AgentSettingsPlayersRoutesDeps): void {
  const { players, content, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const writeWithBody = [...write, jsonBody(deps.bodyLimitBytes)];
  const companyOf = (ctx: Context) => (ctx.state as AgentSessionState).agentSession.companyId;
  /** The company, and the admin acting and from where (for the audit entry). */
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actorUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };
  /** The company's game, or 404 (another company's game, a deleted one). */
  const requireGame = async (companyId: string, gameId: string) => {
    await content.getGame({ companyId, gameId });
  };
  const immediateDeletionAllowed = async (companyId: string) => (await content.getCompany({ companyId })).company?.allowImmediateDeletion === true;

  api.operation<"getAgentSettingsImmediateDeletion", AgentSessionState>(
    "getAgentSettingsImmediateDeletion",
    async (ctx) => {
      respond(ctx, 200, { allowed: await immediateDeletionAllowed(companyOf(ctx)) });
    },
    { before: read },
  );

  api.operation<"listAgentSettingsBlockedPlayers", AgentSessionState>(
    "listAgentSettingsBlockedPlayers",
    async (ctx) => {
      const { params, query } = ctx.state.validated;
      const page = await players.listBlockedPlayers({ companyId: companyOf(ctx), gameId: params.gameId, pageSize: query.limit ?? 25, cursor: query.cursor ?? "" });
      respond(ctx, 200, { players: page.players.map(settingsPlayerDto), pagination: { cursor: page.nextCursor || null } });
    },
    { before: read },
  );

  api.operation<"blockAgentSettingsPlayer", AgentSessionState>(
    "blockAgentSettingsPlayer",
    async (ctx) => {
      const { params, body } = ctx.state.validated;
      const change = changeOf(ctx);
      const key = playerKeyOf(body);
      await requireGame(change.companyId, params.gameId);
      const { player } = await players.blockPlayer({ ...change, gameId: params.gameId, ...key });
      respond(ctx, 200, settingsPlayerDto(player!));
    },
    { before: writeWithBody },
  );

  api.operation<"unblockAgentSettingsPlayer", AgentSessionState>(
    "unblockAgentSettingsPlayer",
    async (ctx) => {
      const { params } = ctx.state.validated;
      const change = changeOf(ctx);
      const { player } = await players.getPlayer({ companyId: change.companyId, playerId: params.servicePlayerId });
      if (!player || player.gameId !== params.gameId.toLowerCase()) throw notFound("player not found");
      const key = player.externalId !== undefined ? { externalId: player.externalId } : { email: player.email };
      const unblocked = await players.unblockPlayer({ ...change, gameId: player.gameId, ...key });
      respond(ctx, 200, settingsPlayerDto(unblocked.player!));
    },
    { before: write },
  );

  api.operation<"deleteAgentSettingsPlayer", AgentSessionState>(
    "deleteAgentSettingsPlayer",
    async (ctx) => {
      const { params, body } = ctx.state.validated;
      const change = changeOf(ctx);
      const key = playerKeyOf(body);
      // The players service refuses it too; asked first here so that the answer is 403 whatever the player.
      if (!(await immediateDeletionAllowed(change.companyId))) throw permissionDenied(NOT_ALLOWED);
      await requireGame(change.companyId, params.gameId);
      const { player } = await players.findPlayer({ companyId: change.companyId, gameId: params.gameId, ...key });
      if (!player) throw notFound("player not found");
      const { erasureId } = await players.deletePlayer({ ...change, playerId: player.id }, { timeoutMs: DELETE_PLAYER_TIMEOUT_MS });
      respond(ctx, 200, { servicePlayerId: player.id, erasureId });
    },
    { before: writeWithBody },
  );

  api.operation<"listAgentSettingsScheduledDeletions", AgentSessionState>(
    "listAgentSettingsScheduledDeletions",
    async (ctx) => {
      const { query } = ctx.state.validated;
      const page = await players.listScheduledDeletions({ companyId: companyOf(ctx), gameId: query.gameId, pageSize: query.limit ?? 25, cursor: query.cursor ?? "" });
      respond(ctx, 200, { deletions: page.deletions.map(scheduledDeletionDto), pagination: { cursor: page.nextCursor || null } });
    },
    { before: read },
  );

  api.operation<"cancelAgentSettingsPlayerDeletion", AgentSessionState>(
    "cancelAgentSettingsPlayerDeletion",
    async (ctx) => {
      const change = changeOf(ctx);
      await players.cancelPlayerDeletion({
        companyId: change.companyId, playerId: ctx.state.validated.params.servicePlayerId, actingUserId: change.actorUserId, clientAddress: change.clientAddress,
      });
      respond(ctx, 204, "");
    },
    { before: write },
  );
}
