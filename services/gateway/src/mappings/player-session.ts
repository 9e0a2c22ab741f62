// What GET /player-api/session and GET /player-api/resources/{key} (and the help center's search
// and related articles) answer, from content.v1's game, resources, collectors and announcement,
// localized for the session (localization.ts).
// content.v1 carries the document's collector field types as strings; content only stores the
// document's values, so they are narrowed with `as`.
import type { ArticleSearchHit, Collector, GameResource, Announcement } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { articleLanguage, localize, localizedText } from "../player-side/localization.ts";

export interface Localization {
  language: string;
  gameLanguages: readonly string[];
}

/** An article in one language (its title and body from the same one where it has both; see articleLanguage). */
export function toPlayerResourceDto(resource: GameResource, l10n: Localization): Schemas["PlayerResource"] {
  const language = articleLanguage(resource.titleLocalized, resource.body, l10n.language, l10n.gameLanguages);
  const title = language === undefined ? undefined : resource.titleLocalized?.[language];
  const body = language === undefined ? undefined : resource.body?.[language];
  return {
    key: resource.key,
    title: typeof title === "string" && title.trim() !== "" ? title : (localize(resource.titleLocalized, l10n.language, l10n.gameLanguages) ?? resource.title),
    body: typeof body === "string" && body.trim() !== "" ? body : null,
    language: (language ?? l10n.language) as Schemas["Language"],
  };
}

/**
 * Each article in the one language the page shows it in (articleLanguage), for content's search
 * and related articles; an article with no localized text is left out.
 */
export function shownArticles(resources: readonly GameResource[], l10n: Localization): { key: string; language: string }[] {
  return resources.flatMap((resource) => {
    const language = articleLanguage(resource.titleLocalized, resource.body, l10n.language, l10n.gameLanguages);
    return language === undefined ? [] : [{ key: resource.key, language }];
  });
}

/** A search result: the article's title as GET /player-api/resources/{key} gives it, the excerpt content made. */
export function toPlayerSearchResultDto(resource: GameResource, hit: ArticleSearchHit, l10n: Localization): Schemas["PlayerResourceSearchResult"] {
  return {
    key: resource.key,
    title: toPlayerResourceDto(resource, l10n).title,
    excerpt: hit.excerpt,
    language: hit.language as Schemas["Language"],
    section: localize(resource.section, l10n.language, l10n.gameLanguages) ?? null,
  };
}

export function toResourceSummaryDto(resource: GameResource, l10n: Localization): Schemas["PlayerSession"]["resources"][number] {
  const title = localizedText(resource.titleLocalized, l10n.language, l10n.gameLanguages);
  return {
    key: resource.key,
    title: title?.text ?? resource.title,
    ...(title ? { language: title.language as Schemas["Language"] } : {}),
    section: localize(resource.section, l10n.language, l10n.gameLanguages) ?? null,
  };
}

export function toCollectorDefinitionDto(collector: Collector): Schemas["CollectorDefinition"] {
  return {
    id: collector.id,
    title: collector.title,
    fields: collector.fields.map((field) => ({
      key: field.key,
      label: field.label,
      type: field.type as Schemas["CollectorDefinition"]["fields"][number]["type"],
      ...(field.options.length > 0 ? { options: field.options } : {}),
      required: field.required,
    })),
  };
}

/** The announcement in force, localized; null when there is none or it has no text for anyone. */
export function toPlayerAnnouncementDto(announcement: Announcement | undefined, l10n: Localization): Schemas["PlayerSession"]["announcement"] {
  if (!announcement) return null;
  const text = localizedText(announcement.shortContent, l10n.language, l10n.gameLanguages);
  if (text === undefined) return null;
  const details = localizedText(announcement.longContent, l10n.language, l10n.gameLanguages);
  return {
    text: text.text,
    details: details?.text ?? null,
    language: text.language as Schemas["Language"],
    ...(details && details.language !== text.language ? { detailsLanguage: details.language as Schemas["Language"] } : {}),
  };
}
