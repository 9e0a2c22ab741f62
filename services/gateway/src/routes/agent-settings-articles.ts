// /agent-api/settings/games/{gameId}/articles..., /agent-api/settings/articles/... and
// /agent-api/settings/announcements: a game's help articles (title, section and Markdown body
// per language, in an order) and the company's announcements of every scope, changed by its
// admins. Content owns them (CompanySettingsService checks the admin, applies the rules of the
// public API and tenant files, and writes the audit log).
import type { JsonObject } from "@bufbuild/protobuf";
import type { Context } from "koa";
import type { CompanyAnnouncement, CompanyArticle } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { CompanySettingsClient } from "../clients.ts";
import { isoTimestamp } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsArticlesRoutesDeps {
  companySettings: CompanySettingsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

type Localized = Record<string, string | null>;
const map = (value: JsonObject | undefined): Localized => (value ?? {}) as Localized;

export function articleDto(article: CompanyArticle): Schemas["AgentSettingsArticle"] {
  return {
    id: article.id,
    gameId: article.gameId,
    key: article.key,
    title: article.title,
    titleLocalized: map(article.titleLocalized),
    section: map(article.section),
    body: map(article.body),
    position: article.position,
    updatedAt: isoTimestamp(article.updatedAt, "content", "article updatedAt"),
  };
}

/** An article of the list with the web support page's "was this helpful?" counts, in total and per language. */
export function articleWithFeedbackDto(article: CompanyArticle): Schemas["AgentSettingsArticle"] {
  const languages = article.feedback.map((count) => ({ language: count.language as Schemas["Language"], helpful: count.helpful, notHelpful: count.notHelpful }));
  return {
    ...articleDto(article),
    feedback: {
      helpful: languages.reduce((sum, count) => sum + count.helpful, 0),
      notHelpful: languages.reduce((sum, count) => sum + count.notHelpful, 0),
      languages,
    },
  };
}

export function announcementDto(announcement: CompanyAnnouncement): Schemas["AgentSettingsAnnouncement"] {
  return {
    scope: announcement.scope as Schemas["AgentSettingsAnnouncement"]["scope"],
    gameId: announcement.gameId ?? null,
    environmentId: announcement.environmentId ?? null,
    shortContent: map(announcement.shortContent),
    longContent: map(announcement.longContent),
    updatedAt: isoTimestamp(announcement.updatedAt, "content", "announcement updatedAt"),
  };
}

export function registerAgentSettingsArticlesRoutes(api: ApiRoutes, deps: AgentSettingsArticlesRoutesDeps): void {
  const { companySettings, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const writeWithBody = [...write, jsonBody(deps.bodyLimitBytes)];
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };
  const struct = (value: Localized | null | undefined) => (value ?? undefined) as JsonObject | undefined;

  api.operation<"listAgentSettingsArticles", AgentSessionState>(
    "listAgentSettingsArticles",
    async (ctx) => {
      const { articles } = await companySettings.listCompanyArticles({ change: changeOf(ctx), gameId: ctx.state.validated.params.gameId });
      respond(ctx, 200, { articles: articles.map(articleWithFeedbackDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsArticle", AgentSessionState>(
    "createAgentSettingsArticle",
    async (ctx) => {
      const { key, title, section, body } = ctx.state.validated.body;
      const { article } = await companySettings.createCompanyArticle({
        change: changeOf(ctx), gameId: ctx.state.validated.params.gameId, key: key ?? "", title: struct(title), section: struct(section), body: struct(body),
      });
      respond(ctx, 201, articleDto(article!));
    },
    { before: writeWithBody },
  );

  api.operation<"reorderAgentSettingsArticles", AgentSessionState>(
    "reorderAgentSettingsArticles",
    async (ctx) => {
      const { articles } = await companySettings.reorderCompanyArticles({ change: changeOf(ctx), gameId: ctx.state.validated.params.gameId, articleIds: ctx.state.validated.body.articleIds });
      respond(ctx, 200, { articles: articles.map(articleDto) });
    },
    { before: writeWithBody },
  );

  api.operation<"updateAgentSettingsArticle", AgentSessionState>(
    "updateAgentSettingsArticle",
    async (ctx) => {
      const { title, section, body } = ctx.state.validated.body;
      const { article } = await companySettings.updateCompanyArticle({
        change: changeOf(ctx), articleId: ctx.state.validated.params.articleId, title: struct(title), section: struct(section), body: struct(body),
      });
      respond(ctx, 200, articleDto(article!));
    },
    { before: writeWithBody },
  );

  api.operation<"removeAgentSettingsArticle", AgentSessionState>(
    "removeAgentSettingsArticle",
    async (ctx) => {
      const { article } = await companySettings.removeCompanyArticle({ change: changeOf(ctx), articleId: ctx.state.validated.params.articleId });
      respond(ctx, 200, articleDto(article!));
    },
    { before: write },
  );

  api.operation<"listAgentSettingsAnnouncements", AgentSessionState>(
    "listAgentSettingsAnnouncements",
    async (ctx) => {
      const { announcements, primaryLanguage } = await companySettings.listCompanyAnnouncements({ change: changeOf(ctx) });
      respond(ctx, 200, { primaryLanguage, announcements: announcements.map(announcementDto) });
    },
    { before: read },
  );

  api.operation<"setAgentSettingsAnnouncement", AgentSessionState>(
    "setAgentSettingsAnnouncement",
    async (ctx) => {
      const { gameId, environmentId, shortContent, longContent } = ctx.state.validated.body;
      const { announcement } = await companySettings.setCompanyAnnouncement({
        change: changeOf(ctx), gameId: gameId ?? undefined, environmentId: environmentId ?? undefined, shortContent: struct(shortContent), longContent: struct(longContent),
      });
      respond(ctx, 200, announcementDto(announcement!));
    },
    { before: writeWithBody },
  );

  api.operation<"clearAgentSettingsAnnouncement", AgentSessionState>(
    "clearAgentSettingsAnnouncement",
    async (ctx) => {
      const { gameId, environmentId } = ctx.state.validated.query;
      await companySettings.clearCompanyAnnouncement({ change: changeOf(ctx), gameId, environmentId });
      respond(ctx, 204, "");
    },
    { before: write },
  );
}
