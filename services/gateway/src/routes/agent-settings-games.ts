// /agent-api/settings/games...: a company's games, their environments (public tokens, rotated
// with an overlap) and their public keys for signed player metadata, changed by its admins.
// Content owns them (CompanySettingsService checks the admin and writes the audit log); the
// token test asks content for the game's keys (an admin's, of the company) and then the players
// service, whose verification of session requests answers it.
import type { JsonObject } from "@bufbuild/protobuf";
import type { Context } from "koa";
import type { CompanyEnvironment, CompanyGame } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { CompanySettingsClient, PlayersClient } from "../clients.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsGamesRoutesDeps {
  companySettings: CompanySettingsClient;
  players: PlayersClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

export function environmentDto(environment: CompanyEnvironment): Schemas["AgentGameEnvironment"] {
  return {
    id: environment.id,
    gameId: environment.gameId,
    name: environment.name,
    token: environment.token,
    createdAt: isoTimestamp(environment.createdAt, "content", "environment createdAt"),
    previousToken: environment.previousToken ?? null,
    previousTokenExpiresAt: isoTimestampOrNull(environment.previousTokenExpiresAt),
    tokenRotatedAt: isoTimestampOrNull(environment.tokenRotatedAt),
  };
}

export function gameDto(game: CompanyGame): Schemas["AgentGame"] {
  return {
    id: game.id,
    name: game.name,
    slug: game.slug,
    languages: game.languages as Schemas["Language"][],
    blockUnverifiedPlayers: game.blockUnverifiedPlayers,
    routingEnabled: game.routingEnabled,
    metadataJwks: (game.metadataJwks as Record<string, unknown> | undefined) ?? null,
    createdAt: isoTimestamp(game.createdAt, "content", "game createdAt"),
    updatedAt: isoTimestamp(game.updatedAt, "content", "game updatedAt"),
    environments: game.environments.map(environmentDto),
  };
}

export function registerAgentSettingsGamesRoutes(api: ApiRoutes, deps: AgentSettingsGamesRoutesDeps): void {
  const { companySettings, players, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const writeWithBody = [...write, jsonBody(deps.bodyLimitBytes)];
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };

  api.operation<"listAgentSettingsGames", AgentSessionState>(
    "listAgentSettingsGames",
    async (ctx) => {
      const { games } = await companySettings.listCompanyGames({ change: changeOf(ctx) });
      respond(ctx, 200, { games: games.map(gameDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsGame", AgentSessionState>(
    "createAgentSettingsGame",
    async (ctx) => {
      const { name, slug, languages, blockUnverifiedPlayers } = ctx.state.validated.body;
      const { game } = await companySettings.createCompanyGame({ change: changeOf(ctx), name, slug, languages, blockUnverifiedPlayers: blockUnverifiedPlayers ?? false });
      respond(ctx, 201, gameDto(game!));
    },
    { before: writeWithBody },
  );

  api.operation<"getAgentSettingsGame", AgentSessionState>(
    "getAgentSettingsGame",
    async (ctx) => {
      const { game } = await companySettings.getCompanyGame({ change: changeOf(ctx), gameId: ctx.state.validated.params.gameId });
      respond(ctx, 200, gameDto(game!));
    },
    { before: read },
  );

  api.operation<"updateAgentSettingsGame", AgentSessionState>(
    "updateAgentSettingsGame",
    async (ctx) => {
      const { name, languages, blockUnverifiedPlayers, routingEnabled } = ctx.state.validated.body;
      const { game } = await companySettings.updateCompanyGame({
        change: changeOf(ctx),
        gameId: ctx.state.validated.params.gameId,
        name,
        languages: languages === undefined ? undefined : { codes: languages },
        blockUnverifiedPlayers,
        routingEnabled,
      });
      respond(ctx, 200, gameDto(game!));
    },
    { before: writeWithBody },
  );

  api.operation<"setAgentGameMetadataKeys", AgentSessionState>(
    "setAgentGameMetadataKeys",
    async (ctx) => {
      const { metadataJwks } = ctx.state.validated.body;
      const { game } = await companySettings.setCompanyGameMetadataKeys({
        change: changeOf(ctx),
        gameId: ctx.state.validated.params.gameId,
        jwksJson: metadataJwks === null ? "" : JSON.stringify(metadataJwks),
      });
      respond(ctx, 200, gameDto(game!));
    },
    { before: writeWithBody },
  );

  api.operation<"checkAgentMetadataToken", AgentSessionState>(
    "checkAgentMetadataToken",
    async (ctx) => {
      // The game's keys as an admin of the company may see them (404 for another company's game).
      const { game } = await companySettings.getCompanyGame({ change: changeOf(ctx), gameId: ctx.state.validated.params.gameId });
      const verdict = await players.checkMetadataToken({ signedMetadataToken: ctx.state.validated.body.signedMetadataToken, jwks: game!.metadataJwks });
      respond(ctx, 200, {
        verified: verdict.verified,
        reason: verdict.verified ? null : (verdict.reason as NonNullable<Schemas["AgentMetadataTokenCheck"]["reason"]>),
        message: verdict.verified ? null : verdict.message,
        kid: verdict.verified ? verdict.kid : null,
        expiresAt: verdict.verified ? isoTimestampOrNull(verdict.expiresAt) : null,
        metadata: verdict.verified ? ((verdict.metadata as JsonObject | undefined) ?? null) : null,
      });
    },
    { before: writeWithBody },
  );

  api.operation<"createAgentEnvironment", AgentSessionState>(
    "createAgentEnvironment",
    async (ctx) => {
      const { environment } = await companySettings.createCompanyEnvironment({
        change: changeOf(ctx), gameId: ctx.state.validated.params.gameId, name: ctx.state.validated.body.name,
      });
      respond(ctx, 201, environmentDto(environment!));
    },
    { before: writeWithBody },
  );

  api.operation<"rotateAgentEnvironmentToken", AgentSessionState>(
    "rotateAgentEnvironmentToken",
    async (ctx) => {
      const { gameId, environmentId } = ctx.state.validated.params;
      const { environment } = await companySettings.rotateCompanyEnvironmentToken({
        change: changeOf(ctx), gameId, environmentId, overlapSeconds: ctx.state.validated.body.overlapSeconds,
      });
      respond(ctx, 200, environmentDto(environment!));
    },
    { before: writeWithBody },
  );
}
