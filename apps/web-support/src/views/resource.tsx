// One help article: its Markdown body rendered through the sanitizer (the only HTML the page
// ever inserts; player and agent text is always text), then the help center around it: "Was
// this helpful?", related articles and "Still need help?" (the contact form, noting the article).
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Resource, type ResourceSummary } from "../api.ts";
import { BackHome, href, useApp, usePageHeading } from "../app-context.tsx";
import { directionOf } from "../i18n.ts";
import { useRenderedMarkdown } from "../markdown.ts";

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
  // The renderer comes as a chunk of its own (markdown.ts): the body shows when it is here.
  const html = useRenderedMarkdown(resource && resource !== "missing" ? resource.body : null);
  const inItsLanguage = language === undefined ? {} : { lang: language, dir: directionOf(language) };
  return (
    <article>
      <BackHome />
      <h1 ref={heading} tabIndex={-1} {...inItsLanguage}>
        {title}
      </h1>
      {resource && resource !== "missing" &&
        (resource.body ? (
          <div class="markdown" {...inItsLanguage} dangerouslySetInnerHTML={{ __html: html ?? "" }} aria-busy={html === null} />
        ) : (
          <p>{t("resource.empty")}</p>
        ))}
      {resource && resource !== "missing" && (
        <>
          <Helpful resourceKey={resourceKey} />
          <RelatedArticles resourceKey={resourceKey} />
          <section class="still-need-help" aria-labelledby="still-need-help-title">
            <h2 id="still-need-help-title">{t("help.stillNeedHelp")}</h2>
            <p>
              <a class="button primary" href={href.contactAbout(resourceKey)}>
                {t("help.contact")}
              </a>
            </p>
          </section>
        </>
      )}
    </article>
  );
}

/** "Was this helpful? Yes / No", then the thanks (announced, and focused in place of the buttons). */
function Helpful({ resourceKey }: { resourceKey: string }) {
  const { api, locale, fail } = useApp();
  const { t } = locale;
  const [answered, setAnswered] = useState(false);
  const [sending, setSending] = useState(false);
  const thanks = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (answered) thanks.current?.focus();
  }, [answered]);

  async function answer(helpful: boolean) {
    setSending(true);
    try {
      await api.feedback(resourceKey, helpful);
      setAnswered(true);
    } catch (error) {
      fail(error);
    } finally {
      setSending(false);
    }
  }

  return (
    <section class="helpful" aria-labelledby="helpful-title">
      <h2 id="helpful-title">{t("help.helpful")}</h2>
      {!answered && (
        <div class="actions">
          <button type="button" class="button" disabled={sending} onClick={() => void answer(true)}>
            {t("help.yes")}
          </button>
          <button type="button" class="button" disabled={sending} onClick={() => void answer(false)}>
            {t("help.no")}
          </button>
        </div>
      )}
      <p role="status" ref={thanks} tabIndex={-1} class="thanks">
        {answered ? t("help.thanks") : ""}
      </p>
    </section>
  );
}

/** Up to three articles to read next; nothing when there are none (or they could not be read). */
function RelatedArticles({ resourceKey }: { resourceKey: string }) {
  const { api, locale } = useApp();
  const { t } = locale;
  const [related, setRelated] = useState<ResourceSummary[]>([]);

  useEffect(() => {
    // Extra reading: a failure here leaves the article as it is rather than report an error.
    api.related(resourceKey).then(setRelated, () => setRelated([]));
  }, [api, resourceKey]);

  if (related.length === 0) return null;
  const other = (language: string | undefined) => (language && language !== locale.language ? language : undefined);
  return (
    <section class="related" aria-labelledby="related-title">
      <h2 id="related-title">{t("help.related")}</h2>
      <ul class="list">
        {related.map((article) => (
          <li key={article.key}>
            <a href={href.resource(article.key)} lang={other(article.language)} dir={other(article.language) ? directionOf(article.language!) : undefined}>
              {article.title}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
