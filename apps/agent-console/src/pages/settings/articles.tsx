// A game's help articles (the resources the web support page lists by section and a game's link
// opens by key): listed in their order, moved up and down, added, changed and removed (a second
// click confirms). The editor has a tab per language of the game (title, section and Markdown
// body) and beside it a live preview rendered with the web support page's own renderer and
// stylesheet (@support/article-markdown), in the tab's language.
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { renderMarkdown } from "@support/article-markdown";
import { ApiError, call, type GameSettings } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { LanguageTabs, languageName } from "../../components/language-tabs.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { t } from "../../i18n.ts";

type Localized = Record<string, string | null>;

interface SettingsArticle {
  id: string;
  gameId: string;
  key: string;
  title: string;
  titleLocalized: Localized;
  section: Localized;
  body: Localized;
  position: number;
  /** The web support page's "Was this helpful?" answers (the list's articles only). */
  feedback?: { helpful: number; notHelpful: number; languages: { language: string; helpful: number; notHelpful: number }[] };
}

interface Draft {
  title: Record<string, string>;
  section: Record<string, string>;
  body: Record<string, string>;
}

const text = (map: Localized | undefined, language: string) => map?.[language] ?? "";

function draftOf(game: GameSettings, article?: SettingsArticle): Draft {
  const draft: Draft = { title: {}, section: {}, body: {} };
  const languages = new Set([...game.languages, ...Object.keys(article?.titleLocalized ?? {}), ...Object.keys(article?.body ?? {})]);
  for (const language of languages) {
    draft.title[language] = article ? text(article.titleLocalized, language) || (language === game.languages[0] && Object.keys(article.titleLocalized).length === 0 ? article.title : "") : "";
    draft.section[language] = text(article?.section, language);
    draft.body[language] = text(article?.body, language);
  }
  return draft;
}

/** Only the languages with text: an empty one is left out (the page then shows the game's next language). */
function mapOf(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));
}

/** The article's "Was this helpful?" answers: in total, then per language when it was shown in more than one. */
function FeedbackCounts({ feedback }: { feedback: SettingsArticle["feedback"] }) {
  if (!feedback || feedback.helpful + feedback.notHelpful === 0) return <span class="muted">{t("articles.feedbackNone")}</span>;
  return (
    <>
      {t("articles.feedbackCounts", { helpful: feedback.helpful, notHelpful: feedback.notHelpful })}
      {feedback.languages.length > 1 && (
        <ul class="feedback-languages hint">
          {feedback.languages.map((count) => (
            <li key={count.language}>
              {languageName(count.language)}: {t("articles.feedbackCounts", { helpful: count.helpful, notHelpful: count.notHelpful })}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The article as the player will see it, in the selected language, with the web support page's renderer. */
function Preview({ title, body, language }: { title: string; body: string; language: string }) {
  return (
    <section class="player-preview" aria-labelledby="article-preview-title">
      <h3 id="article-preview-title">{t("articles.previewTitle", { language: languageName(language) })}</h3>
      <p class="hint">{t("articles.previewHint")}</p>
      <div class="player-preview-page" lang={language}>
        <article>
          <h1 class="article-preview-heading">{title.trim() || t("articles.untitled")}</h1>
          {body.trim() ? <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(body) }} /> : <p>{t("articles.previewEmpty")}</p>}
        </article>
      </div>
    </section>
  );
}

function Editor({ game, editing, onDone, onCancel }: { game: GameSettings; editing?: SettingsArticle; onDone: (text: string) => void; onCancel: () => void }) {
  const languages = game.languages;
  const [draft, setDraft] = useState<Draft>(() => draftOf(game, editing));
  const [selected, setSelected] = useState(languages[0] ?? "en");
  const [failure, setFailure] = useState<string>();
  const [titleError, setTitleError] = useState<string>();
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const [saving, setSaving] = useState(false);

  useLayoutEffect(() => {
    document.getElementById("article-title")?.focus();
  }, []);

  const set = (part: keyof Draft, value: string) => setDraft((current) => ({ ...current, [part]: { ...current[part], [selected]: value } }));

  async function save(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    const title = mapOf(draft.title);
    if (Object.keys(title).length === 0) {
      setTitleError(t("articles.titleMissing"));
      setInvalid(new Set([selected]));
      document.getElementById("article-title")?.focus();
      return;
    }
    setTitleError(undefined);
    setInvalid(new Set());
    setSaving(true);
    const request = { title, section: mapOf(draft.section), body: mapOf(draft.body) };
    const name = title[languages[0]!] ?? Object.values(title)[0]!;
    try {
      if (editing) {
        await call("PUT", `/settings/articles/${editing.id}`, request);
        onDone(t("articles.saved", { title: name }));
      } else {
        await call("POST", `/settings/games/${game.id}/articles`, request);
        onDone(t("articles.created", { title: name }));
      }
    } catch (caught) {
      setSaving(false);
      if (caught instanceof ApiError && caught.status === 400) {
        const bad = new Set(caught.paths.map((path) => /^\/(?:title|section|body)\/([^/]+)/.exec(path)?.[1]).filter((code): code is string => Boolean(code)));
        setInvalid(bad);
        setFailure(t("articles.invalid", { languages: [...bad].map(languageName).join(", ") || "—" }));
      } else if (caught instanceof ApiError && caught.status === 404) setFailure(t("articles.gone"));
      else setFailure(t("app.error"));
    }
  }

  return (
    <div class="article-editor">
      <form class="inline-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="article-editor-title">
        <h2 id="article-editor-title">{editing ? t("articles.editTitle", { title: editing.title }) : t("articles.newTitle", { game: game.name })}</h2>
        {failure && <Alert>{failure}</Alert>}
        {editing && <p class="hint page-intro">{t("articles.fixed", { key: editing.key })}</p>}
        <LanguageTabs id="article-lang" label={t("articles.languages")} languages={languages} selected={selected} invalid={invalid} onSelect={setSelected}>
          <Field
            id="article-title"
            label={t("articles.titleLabel", { language: languageName(selected) })}
            value={draft.title[selected] ?? ""}
            onInput={(value) => set("title", value)}
            error={titleError}
            required={false}
          />
          <Field
            id="article-section"
            label={t("articles.sectionLabel", { language: languageName(selected) })}
            hint={t("articles.sectionHint")}
            value={draft.section[selected] ?? ""}
            onInput={(value) => set("section", value)}
            required={false}
          />
          <div class="field">
            <label for="article-body">{t("articles.bodyLabel", { language: languageName(selected) })}</label>
            <p class="hint" id="article-body-hint">
              {t("articles.bodyHint")}
            </p>
            <textarea
              id="article-body"
              rows={14}
              class="markdown-source"
              value={draft.body[selected] ?? ""}
              aria-describedby="article-body-hint"
              onInput={(event) => set("body", (event.currentTarget as HTMLTextAreaElement).value)}
            />
          </div>
        </LanguageTabs>
        <div class="form-buttons">
          <button type="submit" class="button primary" disabled={saving}>
            {editing ? t("articles.save") : t("articles.create")}
          </button>
          <button type="button" class="button" onClick={onCancel}>
            {t("articles.cancel")}
          </button>
        </div>
      </form>
      <Preview title={draft.title[selected] ?? ""} body={draft.body[selected] ?? ""} language={selected} />
    </div>
  );
}

export function ArticlesPage() {
  const [gamesList, setGames] = useState<GameSettings[]>();
  const [gameId, setGameId] = useState<string>();
  const [articles, setArticles] = useState<SettingsArticle[]>();
  const [editor, setEditor] = useState<{ editing?: SettingsArticle }>();
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [confirming, setConfirming] = useState<string>();

  useEffect(() => {
    call<{ games: GameSettings[] }>("GET", "/settings/games").then(
      ({ body }) => {
        setGames(body.games);
        setGameId((current) => current ?? body.games[0]?.id);
      },
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
  }, []);
  const load = (id: string) =>
    call<{ articles: SettingsArticle[] }>("GET", `/settings/games/${id}/articles`).then(
      ({ body }) => setArticles(body.articles),
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
  useEffect(() => {
    setArticles(undefined);
    if (gameId) void load(gameId);
  }, [gameId]);

  const game = gamesList?.find((item) => item.id === gameId);

  function close(text?: string) {
    const editing = editor?.editing;
    setEditor(undefined);
    if (text) setMessage({ kind: "success", text });
    if (gameId)
      void load(gameId).then(() => {
        const target = editing ? document.getElementById(`edit-${editing.id}`) : document.getElementById("new-article");
        (target ?? document.getElementById("articles-title"))?.focus();
      });
  }

  async function move(index: number, by: number) {
    if (!articles || !gameId) return;
    const order = articles.map((article) => article.id);
    const [moved] = order.splice(index, 1);
    order.splice(index + by, 0, moved!);
    setMessage(undefined);
    try {
      const { body } = await call<{ articles: SettingsArticle[] }>("PUT", `/settings/games/${gameId}/article-order`, { articleIds: order });
      // The new order's answer has no counts: each article keeps the ones the list read.
      setArticles(body.articles.map((article) => ({ ...article, feedback: article.feedback ?? articles.find((known) => known.id === article.id)?.feedback })));
      const at = index + by;
      const edge = at === 0 || at === order.length - 1;
      // Keyboard users keep their place: the focus follows the moved article's button (or its other one at an end).
      document.getElementById(`${by < 0 ? (edge && at === 0 ? "down" : "up") : edge ? "up" : "down"}-${moved}`)?.focus();
      setMessage({ kind: "success", text: t("articles.moved", { title: articles[index]!.title, position: at + 1 }) });
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  async function remove(article: SettingsArticle) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/articles/${article.id}`);
      setConfirming(undefined);
      setMessage({ kind: "success", text: t("articles.removed", { title: article.title }) });
      if (gameId) await load(gameId);
      document.getElementById("articles-title")?.focus();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  if (editor && game) {
    return (
      <SettingsLayout title={t("settings.articles")}>
        <Editor key={editor.editing?.id ?? "new"} game={game} {...(editor.editing ? { editing: editor.editing } : {})} onDone={(text) => close(text)} onCancel={() => close()} />
      </SettingsLayout>
    );
  }

  return (
    <SettingsLayout title={t("settings.articles")}>
      <p class="hint page-intro">{t("articles.intro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      {gamesList === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : gamesList.length === 0 ? (
        <p class="muted">{t("articles.noGames")}</p>
      ) : (
        <>
          <div class="field articles-game">
            <label for="articles-game">{t("articles.game")}</label>
            <select id="articles-game" value={gameId} onChange={(event) => setGameId((event.currentTarget as HTMLSelectElement).value)}>
              {gamesList.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.name}
                </option>
              ))}
            </select>
          </div>
          <p>
            <button id="new-article" type="button" class="button primary" onClick={() => { setMessage(undefined); setEditor({}); }}>
              {t("articles.new")}
            </button>
          </p>
          <h2 id="articles-title" tabIndex={-1}>
            {t("articles.listTitle", { game: game?.name ?? "—" })}
          </h2>
          {articles === undefined ? (
            <p role="status">{t("app.loading")}</p>
          ) : articles.length === 0 ? (
            <p class="muted">{t("articles.none")}</p>
          ) : (
            <table class="settings-table articles-table" aria-labelledby="articles-title">
              <thead>
                <tr>
                  <th scope="col">{t("articles.position")}</th>
                  <th scope="col">{t("articles.titleColumn")}</th>
                  <th scope="col">{t("articles.sectionColumn")}</th>
                  <th scope="col">{t("articles.languagesColumn")}</th>
                  <th scope="col">{t("articles.feedbackColumn")}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t("articles.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {articles.map((article, index) => {
                  const section = game ? text(article.section, game.languages[0]!) || Object.values(article.section).find(Boolean) || "" : "";
                  const written = Object.entries(article.body).filter(([, value]) => value?.trim()).map(([code]) => languageName(code));
                  return (
                    <tr key={article.id}>
                      <td>{index + 1}</td>
                      <th scope="row">
                        {article.title}
                        <span class="hint article-key"> {article.key}</span>
                      </th>
                      <td>{section || <span class="muted">{t("articles.noSection")}</span>}</td>
                      <td>{written.join(", ") || <span class="muted">{t("articles.noBody")}</span>}</td>
                      <td class="article-feedback">
                        <FeedbackCounts feedback={article.feedback} />
                      </td>
                      <td>
                        <div class="row-actions">
                          <button id={`up-${article.id}`} type="button" class="button small" disabled={index === 0} onClick={() => void move(index, -1)} aria-label={t("articles.moveUpLabel", { title: article.title })}>
                            {t("articles.moveUp")}
                          </button>
                          <button id={`down-${article.id}`} type="button" class="button small" disabled={index === articles.length - 1} onClick={() => void move(index, 1)} aria-label={t("articles.moveDownLabel", { title: article.title })}>
                            {t("articles.moveDown")}
                          </button>
                          <button id={`edit-${article.id}`} type="button" class="button small" onClick={() => { setMessage(undefined); setEditor({ editing: article }); }} aria-label={t("articles.editLabel", { title: article.title })}>
                            {t("articles.edit")}
                          </button>
                          {confirming === article.id ? (
                            <span class="confirm">
                              <button type="button" class="button small danger" onClick={() => void remove(article)} aria-label={t("articles.removeConfirmLabel", { title: article.title })}>
                                {t("articles.removeConfirm")}
                              </button>
                              <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                                {t("articles.cancel")}
                              </button>
                            </span>
                          ) : (
                            <button type="button" class="button small" onClick={() => setConfirming(article.id)} aria-label={t("articles.removeLabel", { title: article.title })}>
                              {t("articles.remove")}
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </>
      )}
    </SettingsLayout>
  );
}
