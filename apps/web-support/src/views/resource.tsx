// One help article: its Markdown body rendered through the sanitizer (the only HTML the page
// ever inserts; player and agent text is always text).
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Resource } from "../api.ts";
import { BackHome, useApp, usePageHeading } from "../app-context.tsx";
import { renderMarkdown } from "@support/article-markdown";
import { directionOf } from "../i18n.ts";

export function ResourceView({ resourceKey }: { resourceKey: string }) {
  const { api, session, locale, fail } = useApp();
  const { t } = locale;
  const opened = session.resource?.key === resourceKey ? session.resource : null;
  const [resource, setResource] = useState<Resource | null | "missing">(opened);

  useEffect(() => {
    if (opened) return;
    api.resource(resourceKey).then(setResource, (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) setResource("missing");
      else fail(error);
    });
  }, [api, resourceKey]);

  const title = resource === "missing" ? t("resource.notFound") : (resource?.title ?? t("app.loading"));
  const heading = usePageHeading(title);

  // An article in another language than the page's says so (screen readers, fonts, direction);
  // the page's own texts around it keep the page's.
  const language = resource && resource !== "missing" && resource.language !== locale.language ? resource.language : undefined;
  const inItsLanguage = language === undefined ? {} : { lang: language, dir: directionOf(language) };
  return (
    <article>
      <BackHome />
      <h1 ref={heading} tabIndex={-1} {...inItsLanguage}>
        {title}
      </h1>
      {resource && resource !== "missing" &&
        (resource.body ? (
          <div class="markdown" {...inItsLanguage} dangerouslySetInnerHTML={{ __html: renderMarkdown(resource.body) }} />
        ) : (
          <p>{t("resource.empty")}</p>
        ))}
    </article>
  );
}
