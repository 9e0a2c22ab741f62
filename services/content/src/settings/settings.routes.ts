// content.v1.CompanySettingsService: what a company's admins change in the support
// application's settings, mapped onto the use cases of the folders that own each object. Every
// call first checks that the acting user is an active admin of the company.
import { setGameRouting } from "../routing/routing.service.ts";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { CompanySettingsService, type CompanyAnnouncementSchema, type CompanyApiKeySchema, type CompanyArticleSchema, type CompanyCollectorSchema, type CompanyEnvironmentSchema, type CompanyGameSchema, type SettingsChange, type TeamMemberSchema } from "@support/proto";
import { validationError } from "@support/errors";
import { deactivateUser, inviteUser, resendInvitation, type UserLinksContext } from "../agents/user-links.service.ts";
import { findTeamMember, listTeam, type TeamMember } from "../agents/team.service.ts";
import { resetUserTwoFactor } from "../agents/two-factor.service.ts";
import { isUuid, throwIfInvalid } from "../common/validation.ts";
import { listEnvironments, listLiveGames } from "../games/game.repository.ts";
import type { Game, GameEnvironment } from "../games/game.ts";
import {
  createEnvironment, createGame, getGame, listGamesWithEnvironments, rotateEnvironmentToken, setGameMetadataKeys, updateGame,
} from "../games/game.service.ts";
import { listLiveTags } from "../tags/tag.repository.ts";
import { brandingMessage } from "../games/branding.ts";
import { getGameBranding, setGameBranding } from "../games/branding.service.ts";
import { userActor, type ChangeOrigin } from "../audit/audit-log.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../api-keys/api-key.service.ts";
import type { ListedApiKey } from "../api-keys/api-key.ts";
import { findCompany } from "../companies/company.repository.ts";
import type { ContentDeps } from "../context.ts";
import { gameIssues, requireCompanyAdmin, updateUser } from "../users/user.service.ts";
import { changeTag, createTag, listTags, retireTag } from "../tags/tag.service.ts";
import { changeField, createField, listFields, retireField } from "../fields/field.service.ts";
import { fieldMessage, tagMessage } from "../routes.ts";
import type { Collector } from "../collectors/collector.ts";
import { changeCollector, createCollector, listCompanyCollectors, retireCollector, setContactForm } from "../collectors/collector.service.ts";
import type { GameResource } from "../games/game.ts";
import { changeArticle, createArticle, listArticles, removeArticle, reorderArticles } from "../games/article.service.ts";
import type { ArticleFeedbackCount } from "../games/article-help.ts";
import { feedbackOfArticles } from "../games/article-help.service.ts";
import type { Announcement } from "../announcements/announcement.ts";
import { clearAnnouncementInSettings, listSettingsAnnouncements, setAnnouncementInSettings } from "../announcements/announcement.service.ts";

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

function teamMemberMessage(member: TeamMember): MessageInitShape<typeof TeamMemberSchema> {
  const { user } = member;
  return {
    id: user.id,
    name: user.name,
    displayName: user.displayName ?? undefined,
    email: user.email,
    role: user.role,
    gameIds: user.gameIds,
    skills: user.skills,
    languages: user.languages,
    capacity: user.capacity,
    available: user.available,
    twoFactorEnabled: member.twoFactorEnabled,
    state: member.state,
    invitationExpiresAt: member.invitationExpiresAt ? timestampFromDate(member.invitationExpiresAt) : undefined,
    lastSignedInAt: member.lastSignedInAt ? timestampFromDate(member.lastSignedInAt) : undefined,
    signedInNow: member.signedInNow,
    createdAt: timestampFromDate(user.createdAt),
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
    routingEnabled: game.routingEnabled,
    metadataJwks: game.metadataJwks === null ? undefined : (game.metadataJwks as unknown as JsonObject),
    createdAt: timestampFromDate(game.createdAt),
    updatedAt: timestampFromDate(game.updatedAt),
    environments: environments.map(environmentMessage),
  };
}

function companyCollectorMessage(collector: Collector): MessageInitShape<typeof CompanyCollectorSchema> {
  return {
    id: collector.id,
    gameId: collector.gameId,
    ref: collector.ref,
    title: collector.title,
    contactForm: collector.contactForm,
    fields: collector.fields,
    createdAt: timestampFromDate(collector.createdAt),
    updatedAt: timestampFromDate(collector.updatedAt),
    retiredAt: collector.retiredAt ? timestampFromDate(collector.retiredAt) : undefined,
  };
}

/** A field of a request as the collector rules read it (proto3 has no absent strings: empty is absent). */
function fieldInput(field: { key: string; label: string; type: string; options: string[]; required: boolean }) {
  return { key: field.key, label: field.label, type: field.type, options: field.options.length > 0 ? field.options : undefined, required: field.required };
}

/** The admin making the change, checked, as the audit log names them. */
function companyArticleMessage(article: GameResource, feedback: readonly ArticleFeedbackCount[] = []): MessageInitShape<typeof CompanyArticleSchema> {
  return {
    id: article.id,
    gameId: article.gameId,
    key: article.key,
    title: article.title,
    titleLocalized: article.titleLocalized as JsonObject,
    section: article.section as JsonObject,
    body: article.body as JsonObject,
    position: article.position,
    updatedAt: timestampFromDate(article.updatedAt),
    feedback: [...feedback],
  };
}

function companyAnnouncementMessage(announcement: Announcement): MessageInitShape<typeof CompanyAnnouncementSchema> {
  return {
    scope: announcement.scope,
    gameId: announcement.gameId ?? undefined,
    environmentId: announcement.environmentId ?? undefined,
    shortContent: announcement.shortContent as JsonObject,
    longContent: announcement.longContent as JsonObject,
    updatedAt: timestampFromDate(announcement.updatedAt),
  };
}

async function adminChange(db: Db, change: SettingsChange | undefined, what: string): Promise<ChangeOrigin & { companyId: string; userId: string; userName: string }> {
  if (!change || change.actingUserId === "") throw validationError([{ path: "/change/actingUserId", message: "is required" }]);
  const admin = await requireCompanyAdmin(db, change.companyId, change.actingUserId, what);
  return { companyId: change.companyId, userId: admin.id, userName: admin.name, actor: userActor(admin.id), clientAddress: change.clientAddress || null };
}

/** The company's limit for keys without their own; undefined: the gateway's default. */
async function companyRateLimit(db: Db, companyId: string): Promise<number | undefined> {
  return (await findCompany(db, companyId))?.apiRateLimitPerMinute ?? undefined;
}

export function registerSettingsRoutes(router: ConnectRouter, deps: Pick<ContentDeps, "db"> & Pick<UserLinksContext, "config" | "mailer">): void {
  const { db } = deps;
  const links: UserLinksContext = { db, config: deps.config, mailer: deps.mailer };
  /** The team member after a change, as the list shows them. */
  const memberOf = async (companyId: string, userId: string) => {
    const member = await findTeamMember(db, companyId, userId);
    return { user: member && teamMemberMessage(member) };
  };
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
    listCompanyTagsAndFields: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its tags and fields");
      return { tags: (await listTags(db, companyId)).map(tagMessage), fields: (await listFields(db, companyId)).map(fieldMessage) };
    },
    createCompanyTag: async (req) => {
      const origin = await adminChange(db, req.change, "creates tags");
      const input = { gameId: req.gameId ?? null, name: req.name, description: req.description ?? null, isAiTag: req.isAiTag, isSkill: req.isSkill };
      return { tag: tagMessage(await createTag(db, origin.companyId, input, origin)) };
    },
    updateCompanyTag: async (req) => {
      const origin = await adminChange(db, req.change, "changes tags");
      return { tag: tagMessage(await changeTag(db, origin.companyId, req.tagId, { description: req.description ?? null, isAiTag: req.isAiTag, isSkill: req.isSkill }, origin)) };
    },
    retireCompanyTag: async (req) => {
      const origin = await adminChange(db, req.change, "retires tags");
      return { tag: tagMessage(await retireTag(db, origin.companyId, req.tagId, origin)) };
    },
    createCompanyField: async (req) => {
      const origin = await adminChange(db, req.change, "creates fields");
      const input = { gameId: req.gameId ?? null, key: req.key, name: req.name, type: req.type, description: req.description ?? null, isAiField: req.isAiField, options: req.options };
      return { field: fieldMessage(await createField(db, origin.companyId, input, origin)) };
    },
    updateCompanyField: async (req) => {
      const origin = await adminChange(db, req.change, "changes fields");
      const input = { name: req.name, description: req.description ?? null, isAiField: req.isAiField, options: req.options };
      return { field: fieldMessage(await changeField(db, origin.companyId, req.fieldId, input, origin)) };
    },
    retireCompanyField: async (req) => {
      const origin = await adminChange(db, req.change, "retires fields");
      return { field: fieldMessage(await retireField(db, origin.companyId, req.fieldId, origin)) };
    },

    listTeamMembers: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its team");
      const [team, games, tags] = await Promise.all([listTeam(db, companyId), listLiveGames(db, companyId), listLiveTags(db, companyId)]);
      const skillTags = [...new Set(tags.filter((tag) => tag.isSkill).map((tag) => tag.name))].sort();
      return { users: team.map(teamMemberMessage), games: games.map((game) => ({ id: game.id, name: game.name })), skillTags };
    },

    inviteTeamMember: async (req) => {
      const origin = await adminChange(db, req.change, "invites users");
      const input = { name: req.name, email: req.email, role: req.role || undefined, displayName: req.displayName, gameIds: req.gameIds, skills: req.skills };
      // Games of another company (or none) are the input's fault here, not a missing object.
      if (req.gameIds.every(isUuid)) throwIfInvalid(await gameIssues(db, origin.companyId, req.gameIds.map((gameId) => gameId.toLowerCase())));
      const issued = await inviteUser(links, origin.companyId, input, new Date(), origin);
      return { ...(await memberOf(origin.companyId, issued.user.id)), mailed: issued.mailed };
    },

    resendTeamInvitation: async (req) => {
      const origin = await adminChange(db, req.change, "invites users");
      const issued = await resendInvitation(links, origin.companyId, req.userId, origin);
      return { ...(await memberOf(origin.companyId, issued.user.id)), mailed: issued.mailed };
    },

    updateTeamMember: async (req) => {
      const origin = await adminChange(db, req.change, "changes its team");
      const user = await updateUser(db, origin.companyId, req.userId, {
        role: req.role, gameIds: req.setGameIds ? req.gameIds : undefined, skills: req.setSkills ? req.skills : undefined,
        languages: req.setLanguages ? req.languages : undefined, capacity: req.capacity,
      }, origin);
      return memberOf(origin.companyId, user.id);
    },

    deactivateTeamMember: async (req) => {
      const origin = await adminChange(db, req.change, "deactivates users");
      const { user } = await deactivateUser(links, origin.companyId, { userId: req.userId }, new Date(), origin);
      return memberOf(origin.companyId, user.id);
    },

    resetTeamMemberTwoFactor: async (req) => {
      const origin = await adminChange(db, req.change, "resets two-factor");
      const { user } = await resetUserTwoFactor(links, { companyId: origin.companyId, userId: req.userId }, new Date(), origin);
      return memberOf(origin.companyId, user.id);
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
      if (req.routingEnabled !== undefined) await setGameRouting(db, origin.companyId, req.gameId, req.routingEnabled, origin);
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
    getCompanyGameBranding: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its games");
      return { branding: brandingMessage(await getGameBranding(db, companyId, req.gameId)) };
    },
    setCompanyGameBranding: async (req) => {
      const origin = await adminChange(db, req.change, "changes games");
      const input = { accentColor: req.accentColor, colorScheme: req.colorScheme, logo: req.removeLogo ? null : req.logo };
      return { branding: brandingMessage(await setGameBranding(db, origin.companyId, req.gameId, input, origin)) };
    },
    listCompanyCollectors: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its collectors");
      return { collectors: (await listCompanyCollectors(db, companyId)).map(companyCollectorMessage) };
    },
    createCompanyCollector: async (req) => {
      const origin = await adminChange(db, req.change, "creates collectors");
      const input = { ref: req.ref, title: req.title, contactForm: false, fields: req.fields.map(fieldInput) };
      return { collector: companyCollectorMessage(await createCollector(db, origin.companyId, req.gameId, input, origin)) };
    },
    updateCompanyCollector: async (req) => {
      const origin = await adminChange(db, req.change, "changes collectors");
      return { collector: companyCollectorMessage(await changeCollector(db, origin.companyId, req.collectorId, { title: req.title, fields: req.fields.map(fieldInput) }, origin)) };
    },
    retireCompanyCollector: async (req) => {
      const origin = await adminChange(db, req.change, "retires collectors");
      return { collector: companyCollectorMessage(await retireCollector(db, origin.companyId, req.collectorId, origin)) };
    },
    setCompanyGameContactForm: async (req) => {
      const origin = await adminChange(db, req.change, "chooses contact forms");
      return { collectors: (await setContactForm(db, origin.companyId, req.gameId, req.collectorId || null, origin)).map(companyCollectorMessage) };
    },
    listCompanyArticles: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its help articles");
      const [articles, feedback] = await Promise.all([listArticles(db, companyId, req.gameId), feedbackOfArticles(db, companyId, req.gameId)]);
      return { articles: articles.map((article) => companyArticleMessage(article, feedback.get(article.id))) };
    },
    createCompanyArticle: async (req) => {
      const origin = await adminChange(db, req.change, "creates help articles");
      const input = { key: req.key || undefined, title: req.title, section: req.section, body: req.body };
      return { article: companyArticleMessage(await createArticle(db, origin.companyId, req.gameId, input, origin)) };
    },
    updateCompanyArticle: async (req) => {
      const origin = await adminChange(db, req.change, "changes help articles");
      return { article: companyArticleMessage(await changeArticle(db, origin.companyId, req.articleId, { title: req.title, section: req.section, body: req.body }, origin)) };
    },
    reorderCompanyArticles: async (req) => {
      const origin = await adminChange(db, req.change, "orders help articles");
      return { articles: (await reorderArticles(db, origin.companyId, req.gameId, req.articleIds, origin)).map((article) => companyArticleMessage(article)) };
    },
    removeCompanyArticle: async (req) => {
      const origin = await adminChange(db, req.change, "removes help articles");
      return { article: companyArticleMessage(await removeArticle(db, origin.companyId, req.articleId, origin)) };
    },
    listCompanyAnnouncements: async (req) => {
      const { companyId } = await adminChange(db, req.change, "sees its announcements");
      const [announcements, company] = await Promise.all([listSettingsAnnouncements(db, companyId), findCompany(db, companyId)]);
      return { announcements: announcements.map(companyAnnouncementMessage), primaryLanguage: company?.primaryLanguage ?? "" };
    },
    setCompanyAnnouncement: async (req) => {
      const origin = await adminChange(db, req.change, "sets announcements");
      const scope = { gameId: req.gameId ?? null, environmentId: req.environmentId ?? null };
      const announcement = await setAnnouncementInSettings(db, origin.companyId, scope, { shortContent: req.shortContent, longContent: req.longContent }, origin);
      return { announcement: companyAnnouncementMessage(announcement) };
    },
    clearCompanyAnnouncement: async (req) => {
      const origin = await adminChange(db, req.change, "clears announcements");
      await clearAnnouncementInSettings(db, origin.companyId, { gameId: req.gameId ?? null, environmentId: req.environmentId ?? null }, origin);
      return {};
    },
  });
}
