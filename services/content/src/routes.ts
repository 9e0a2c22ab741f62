// content.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// the domain folders, SQL in the repositories.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { idempotent } from "@support/idempotency";
import { ContentService } from "@support/proto";
import type {
  AnnouncementSchema, CollectorSchema, CompanySchema, FieldDefinitionSchema, GameEnvironmentSchema, GameResourceSchema, GameSchema, TagSchema,
} from "@support/proto";
import type { Collector } from "./collectors/collector.ts";
import { getCollector, listCollectors } from "./collectors/collector.service.ts";
import type { Announcement } from "./announcements/announcement.ts";
import {
  deleteAnnouncement, deleteEnvironmentAnnouncement, listAnnouncements, putAnnouncement, putEnvironmentAnnouncement,
  resolveAnnouncement,
} from "./announcements/announcement.service.ts";
import { authenticateApiKey, recordApiKeyUse } from "./api-keys/api-key.service.ts";
import type { Company } from "./companies/company.ts";
import { getCompany } from "./companies/company.service.ts";
import type { FieldDefinition } from "./fields/field.ts";
import { listFields } from "./fields/field.service.ts";
import type { Game, GameEnvironment, GameResource } from "./games/game.ts";
import { getEnvironmentByToken, getGame, listGames } from "./games/game.service.ts";
import { recordArticleFeedback, relatedArticles, searchArticles } from "./games/article-help.service.ts";
import { brandingMessage } from "./games/branding.ts";
import { findBranding } from "./games/branding.repository.ts";
import { getGameLogo } from "./games/branding.service.ts";
import type { ContentDeps } from "./context.ts";
import type { Tag } from "./tags/tag.ts";
import { listTags } from "./tags/tag.service.ts";
import { checkUserAccess } from "./users/user.service.ts";
import { getGameRouting } from "./routing/routing.service.ts";

function companyMessage(company: Company): MessageInitShape<typeof CompanySchema> {
  return {
    id: company.id,
    name: company.name,
    primaryLanguage: company.primaryLanguage,
    allowImmediateDeletion: company.allowImmediateDeletion,
    autoCloseWaitingAfterHours: company.autoCloseWaitingAfterHours,
    emailSenderName: company.emailSender.name ?? undefined,
    emailSenderAddress: company.emailSender.address ?? undefined,
  };
}

function gameMessage(game: Game): MessageInitShape<typeof GameSchema> {
  return {
    id: game.id,
    companyId: game.companyId,
    name: game.name,
    slug: game.slug,
    languages: game.languages,
    createdAt: timestampFromDate(game.createdAt),
    updatedAt: timestampFromDate(game.updatedAt),
    blockUnverifiedPlayers: game.blockUnverifiedPlayers,
    metadataJwks: game.metadataJwks === null ? undefined : (game.metadataJwks as unknown as JsonObject),
    routingEnabled: game.routingEnabled,
  };
}

function environmentMessage(environment: GameEnvironment): MessageInitShape<typeof GameEnvironmentSchema> {
  return { id: environment.id, gameId: environment.gameId, name: environment.name, token: environment.token };
}

function resourceMessage(resource: GameResource): MessageInitShape<typeof GameResourceSchema> {
  return {
    key: resource.key, title: resource.title, titleLocalized: resource.titleLocalized as JsonObject, body: resource.body as JsonObject,
    section: resource.section as JsonObject, position: resource.position,
  };
}

function collectorMessage(collector: Collector): MessageInitShape<typeof CollectorSchema> {
  return {
    id: collector.id,
    gameId: collector.gameId,
    ref: collector.ref,
    title: collector.title,
    contactForm: collector.contactForm,
    fields: collector.fields.map((field) => ({ key: field.key, label: field.label, type: field.type, options: field.options, required: field.required })),
  };
}

export function tagMessage(tag: Tag): MessageInitShape<typeof TagSchema> {
  return {
    id: tag.id,
    gameId: tag.gameId ?? undefined,
    name: tag.name,
    description: tag.description ?? undefined,
    isAiTag: tag.isAiTag,
    isSkill: tag.isSkill,
    createdAt: timestampFromDate(tag.createdAt),
    updatedAt: timestampFromDate(tag.updatedAt),
  };
}

export function fieldMessage(field: FieldDefinition): MessageInitShape<typeof FieldDefinitionSchema> {
  return {
    id: field.id,
    gameId: field.gameId ?? undefined,
    name: field.name,
    description: field.description ?? undefined,
    type: field.type,
    key: field.key,
    isAiField: field.isAiField,
    options: field.options,
  };
}

function announcementMessage(announcement: Announcement): MessageInitShape<typeof AnnouncementSchema> {
  return {
    gameId: announcement.gameId ?? undefined,
    shortContent: announcement.shortContent as JsonObject,
    longContent: announcement.longContent as JsonObject,
  };
}

export function registerRoutes(router: ConnectRouter, deps: ContentDeps): void {
  const { db } = deps;
  router.service(ContentService, {
    authenticateApiKey: async (req) => {
      const found = await authenticateApiKey(db, req.keyHash);
      return {
        companyId: found.companyId,
        apiKeyId: found.apiKeyId,
        keyRateLimitPerMinute: found.keyRateLimitPerMinute ?? undefined,
        companyRateLimitPerMinute: found.companyRateLimitPerMinute ?? undefined,
      };
    },

    recordApiKeyUse: async (req) => {
      await recordApiKeyUse(db, req.uses.filter((use) => use.lastUsedAt !== undefined).map((use) => ({ apiKeyId: use.apiKeyId, lastUsedAt: timestampDate(use.lastUsedAt!) })));
      return {};
    },

    listCollectors: async (req) => ({ collectors: (await listCollectors(db, req.companyId, req.gameId)).map(collectorMessage) }),

    getCollector: async (req) => ({ collector: collectorMessage(await getCollector(db, req.companyId, req.collectorId)) }),

    getCompany: async (req) => ({ company: companyMessage(await getCompany(db, req.companyId)) }),

    listGames: async (req) => ({ games: (await listGames(db, req.companyId)).map(gameMessage) }),

    getGame: async (req) => {
      const { game, environments, resources } = await getGame(db, req.companyId, req.gameId);
      const branding = await findBranding(db, game.companyId, game.id);
      return { game: gameMessage(game), environments: environments.map(environmentMessage), resources: resources.map(resourceMessage), branding: brandingMessage(branding) };
    },

    getGameLogo: async (req) => getGameLogo(db, req.gameId, req.sha256),

    listTags: async (req) => ({ tags: (await listTags(db, req.companyId)).map(tagMessage) }),

    listFields: async (req) => ({ fields: (await listFields(db, req.companyId)).map(fieldMessage) }),

    listAnnouncements: async (req) => ({ announcements: (await listAnnouncements(db, req.companyId)).map(announcementMessage) }),

    putAnnouncement: async (req) => {
      const announcement = await putAnnouncement(db, req.companyId, {
        gameId: req.gameId,
        shortContent: req.shortContent,
        longContent: req.longContent ?? null,
      });
      return { announcement: announcementMessage(announcement) };
    },

    // With an Idempotency-Key, the use case runs in the transaction that records the key.
    deleteAnnouncement: (req, context) =>
      idempotent(db, req, context, async (handle) => {
        await deleteAnnouncement(handle, req.companyId, { gameId: req.gameId });
        return {};
      }),

    putEnvironmentAnnouncement: async (req) => {
      const announcement = await putEnvironmentAnnouncement(db, req.companyId, req.environmentId, {
        shortContent: req.shortContent,
        longContent: req.longContent ?? null,
      });
      return { announcement: announcementMessage(announcement) };
    },

    deleteEnvironmentAnnouncement: async (req) => {
      await deleteEnvironmentAnnouncement(db, req.companyId, req.environmentId);
      return {};
    },

    resolveAnnouncement: async (req) => {
      const { announcement, source } = await resolveAnnouncement(db, req.companyId, req.environmentId);
      return { announcement: announcement ? announcementMessage(announcement) : undefined, source };
    },

    getEnvironmentByToken: async (req) => {
      const { environment, game, resources } = await getEnvironmentByToken(db, req.token);
      return {
        companyId: game.companyId,
        environment: environmentMessage(environment),
        game: gameMessage(game),
        resources: resources.map(resourceMessage),
      };
    },

    checkUserAccess: async (req) => ({ hasAccess: await checkUserAccess(db, req.companyId, req.userId, req.gameId) }),

    getGameRouting: async (req) => await getGameRouting(db, req.companyId, req.gameId),

    searchArticles: async (req) => ({ hits: await searchArticles(db, req.companyId, req.gameId, req.shown, req.query, req.limit || undefined) }),

    listRelatedArticles: async (req) => ({ keys: await relatedArticles(db, req.companyId, req.gameId, req.key, req.language, req.shown) }),

    recordArticleFeedback: async (req) => {
      await recordArticleFeedback(db, req.companyId, req.gameId, req.key, { sessionId: req.sessionId, language: req.language, helpful: req.helpful });
      return {};
    },
  });
}
