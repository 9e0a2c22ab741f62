// content.v1.CompanySettingsService: what a company's admins change in the support
// application's settings, mapped onto the use cases of the folders that own each object. Every
// call first checks that the acting user is an active admin of the company.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { CompanySettingsService, type CompanyApiKeySchema, type CompanyEnvironmentSchema, type CompanyGameSchema, type SettingsChange } from "@support/proto";
import { validationError } from "@support/errors";
import { userActor } from "../audit/audit-log.ts";
import { createApiKey, listApiKeys, revokeApiKey, type ChangeOrigin } from "../api-keys/api-key.service.ts";
import type { ListedApiKey } from "../api-keys/api-key.ts";
import { findCompany } from "../companies/company.repository.ts";
import type { ContentDeps } from "../context.ts";
import type { Game, GameEnvironment } from "../games/game.ts";
import {
  createEnvironment, createGame, getGame, listGamesWithEnvironments, rotateEnvironmentToken, setGameMetadataKeys, updateGame,
} from "../games/game.service.ts";
import { listEnvironments } from "../games/game.repository.ts";
import { requireCompanyAdmin } from "../users/user.service.ts";

type Db = ContentDeps["db"];

function apiKeyMessage(key: ListedApiKey): MessageInitShape<typeof CompanyApiKeySchema> {
  const createdBy = key.createdBy ?? { type: "operator", id: null };
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    createdAt: timestampFromDate(key.createdAt),
    revokedAt: key.revokedAt ? timestampFromDate(key.revokedAt) : undefined,
    rateLimitPerMinute: key.rateLimitPerMinute ?? undefined,
    createdBy: { type: createdBy.type, id: createdBy.id ?? undefined, name: key.createdByName ?? undefined },
    lastUsedAt: key.lastUsedAt ? timestampFromDate(key.lastUsedAt) : undefined,
  };
}

function environmentMessage(environment: GameEnvironment): MessageInitShape<typeof CompanyEnvironmentSchema> {
  return {
    id: environment.id,
    gameId: environment.gameId,
    name: environment.name,
    token: environment.token,
    createdAt: timestampFromDate(environment.createdAt),
    previousToken: environment.previousToken ?? undefined,
    previousTokenExpiresAt: environment.previousTokenExpiresAt ? timestampFromDate(environment.previousTokenExpiresAt) : undefined,
    tokenRotatedAt: environment.tokenRotatedAt ? timestampFromDate(environment.tokenRotatedAt) : undefined,
  };
}

function gameMessage(game: Game, environments: GameEnvironment[]): MessageInitShape<typeof CompanyGameSchema> {
  return {
    id: game.id,
    name: game.name,
    slug: game.slug,
    languages: game.languages,
    blockUnverifiedPlayers: game.blockUnverifiedPlayers,
    metadataJwks: game.metadataJwks === null ? undefined : (game.metadataJwks as unknown as JsonObject),
    createdAt: timestampFromDate(game.createdAt),
    updatedAt: timestampFromDate(game.updatedAt),
    environments: environments.map(environmentMessage),
  };
}

/** The admin making the change, checked, as the audit log names them. */
async function adminChange(db: Db, change: SettingsChange | undefined, what: string): Promise<ChangeOrigin & { companyId: string; userId: string; userName: string }> {
  if (!change || change.actingUserId === "") throw validationError([{ path: "/change/actingUserId", message: "is required" }]);
  const admin = await requireCompanyAdmin(db, change.companyId, change.actingUserId, what);
  return { companyId: change.companyId, userId: admin.id, userName: admin.name, actor: userActor(admin.id), clientAddress: change.clientAddress || null };
}

/** The company's limit for keys without their own; undefined: the gateway's default. */
async function companyRateLimit(db: Db, companyId: string): Promise<number | undefined> {
  return (await findCompany(db, companyId))?.apiRateLimitPerMinute ?? undefined;
}

export function registerSettingsRoutes(router: ConnectRouter, deps: Pick<ContentDeps, "db">): void {
  const { db } = deps;
  router.service(CompanySettingsService, {
    listCompanyApiKeys: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its API keys");
      return { apiKeys: (await listApiKeys(db, companyId)).map(apiKeyMessage), companyRateLimitPerMinute: await companyRateLimit(db, companyId) };
    },
    createCompanyApiKey: async (req) => {
      const origin = await adminChange(db, req.change, "creates API keys");
      const { apiKey, secret } = await createApiKey(db, origin.companyId, { name: req.name, rateLimitPerMinute: req.rateLimitPerMinute }, origin);
      return { apiKey: apiKeyMessage({ ...apiKey, createdByName: origin.userName }), secret, companyRateLimitPerMinute: await companyRateLimit(db, origin.companyId) };
    },
    revokeCompanyApiKey: async (req) => {
      const origin = await adminChange(db, req.change, "revokes API keys");
      const revoked = await revokeApiKey(db, req.apiKeyId, origin);
      const listed = (await listApiKeys(db, origin.companyId)).find((key) => key.id === revoked.id);
      return { apiKey: apiKeyMessage(listed ?? { ...revoked, createdByName: null }), companyRateLimitPerMinute: await companyRateLimit(db, origin.companyId) };
    },

    listCompanyGames: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its games");
      return { games: (await listGamesWithEnvironments(db, companyId)).map(({ game, environments }) => gameMessage(game, environments)) };
    },
    getCompanyGame: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its games");
      const { game, environments } = await getGame(db, companyId, req.gameId);
      return { game: gameMessage(game, environments) };
    },
    createCompanyGame: async (req) => {
      const origin = await adminChange(db, req.change, "creates games");
      const game = await createGame(db, origin.companyId, { name: req.name, slug: req.slug, languages: req.languages, blockUnverifiedPlayers: req.blockUnverifiedPlayers }, origin);
      return { game: gameMessage(game, []) };
    },
    updateCompanyGame: async (req) => {
      const origin = await adminChange(db, req.change, "changes games");
      const game = await updateGame(db, origin.companyId, req.gameId, { name: req.name, languages: req.languages?.codes, blockUnverifiedPlayers: req.blockUnverifiedPlayers }, origin);
      return { game: gameMessage(game, await listEnvironments(db, origin.companyId, game.id)) };
    },
    setCompanyGameMetadataKeys: async (req) => {
      const origin = await adminChange(db, req.change, "changes games");
      const game = await setGameMetadataKeys(db, origin.companyId, req.gameId, req.jwksJson, origin);
      return { game: gameMessage(game, await listEnvironments(db, origin.companyId, game.id)) };
    },
    createCompanyEnvironment: async (req) => {
      const origin = await adminChange(db, req.change, "creates environments");
      return { environment: environmentMessage(await createEnvironment(db, origin.companyId, req.gameId, { name: req.name }, origin)) };
    },
    rotateCompanyEnvironmentToken: async (req) => {
      const origin = await adminChange(db, req.change, "rotates environment tokens");
      return { environment: environmentMessage(await rotateEnvironmentToken(db, origin.companyId, req.gameId, req.environmentId, { overlapSeconds: req.overlapSeconds }, origin)) };
    },
  });
}
