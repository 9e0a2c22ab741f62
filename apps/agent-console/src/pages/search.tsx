// Search results: the tickets of the user's games that `q` matches, newest first, each row as in
// the inbox with a snippet of where it matched, the matched words marked. The snippet arrives as
// plain-text parts and is rendered as text, never as markup.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type SearchMatch, type TicketListItem, type TicketPage } from "../api.ts";
import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { SearchForm } from "../components/search-form.tsx";
import { TicketRowContent } from "../components/ticket-row.tsx";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { navigate, queryParameter } from "../router.ts";
import { saveView } from "../saved-views.ts";
import { me } from "../session.ts";

const PAGE = 50;

function Snippet({ match }: { match: SearchMatch }) {
  return (
    <p class="snippet">
      <span class="snippet-field">{t(`search.field.${match.field}` as MessageKey)}</span>{" "}
      {match.snippet.map((part, index) => (part.highlight ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>))}
    </p>
  );
}

export function SearchPage() {
  const q = (queryParameter("q") ?? "").trim();
  const view = queryParameter("view");
  const [saveName, setSaveName] = useState("");
  const [saveMessage, setSaveMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const viewQuery = view ? `&view=${encodeURIComponent(view)}` : "";
  const [items, setItems] = useState<TicketListItem[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const userId = me.value?.user.id;

  useEffect(() => {
    setItems(undefined);
    setError(undefined);
    if (q === "") return;
    let current = true;
    call<TicketPage>("GET", `/tickets?q=${encodeURIComponent(q)}${viewQuery}&limit=${PAGE}`).then(
      ({ body }) => {
        if (!current) return;
        setItems(body.tickets);
        setCursor(body.pagination.cursor);
      },
      (failure: unknown) => current && setError(failure instanceof ApiError && failure.status === 400 ? t("search.invalid") : t("app.error")),
    );
    return () => {
      current = false;
    };
  }, [q, view]);

  async function save(event: Event) {
    event.preventDefault();
    setSaveMessage(undefined);
    try {
      await saveView(saveName.trim(), q, view);
      setSaveMessage({ kind: "success", text: t("saved.done", { name: saveName.trim() }) });
      setSaveName("");
    } catch (failure) {
      setSaveMessage({ kind: "error", text: failure instanceof ApiError && failure.status === 409 ? t("saved.taken") : t("app.error") });
    }
  }

  async function loadMore() {
    if (cursor === null) return;
    try {
      const { body } = await call<TicketPage>("GET", `/tickets?q=${encodeURIComponent(q)}${viewQuery}&limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`);
      setItems((before) => [...(before ?? []), ...body.tickets]);
      setCursor(body.pagination.cursor);
    } catch {
      setError(t("app.error"));
    }
  }

  return (
    <AppLayout wide>
      <section class="search-pane" aria-labelledby="search-title">
        <p class="back"><Link to="/views/mine">{t("ticket.back")}</Link></p>
        <PageTitle id="search-title">{q === "" ? t("search.title") : t("search.resultsFor", { q })}</PageTitle>
        <SearchForm initial={q} autoFocus={q === ""} />
        {view && <p class="hint">{t("saved.narrowed", { view: t(`view.${view}` as MessageKey) })}</p>}
        {q !== "" && (
          <form class="save-view" onSubmit={save}>
            <label for="save-view-name">{t("saved.name")}</label>
            <input id="save-view-name" type="text" value={saveName} maxLength={60} onInput={(event) => setSaveName((event.currentTarget as HTMLInputElement).value)} />
            <button type="submit" class="button small" disabled={saveName.trim() === ""}>
              {t("saved.save")}
            </button>
            {saveMessage && <p role={saveMessage.kind === "error" ? "alert" : "status"} class={saveMessage.kind === "error" ? "field-error" : "hint"}>{saveMessage.text}</p>}
          </form>
        )}
        {error && <p role="alert" class="alert error">{error}</p>}
        {q === "" ? null : items === undefined ? (
          !error && <p role="status">{t("app.loading")}</p>
        ) : items.length === 0 ? (
          <p role="status">{t("search.none")}</p>
        ) : (
          <>
            <p role="status" class="hint">{cursor === null ? t("search.count", { count: items.length }) : t("search.countMore", { count: items.length })}</p>
            <ul class="ticket-list search-results" aria-label={t("search.resultsLabel")}>
              {items.map((item) => (
                <li key={item.ticket.id} class="ticket-row search-result">
                  <a href={`/app/tickets/${item.ticket.id}`} onClick={(event) => {
                    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
                    event.preventDefault();
                    navigate(`/tickets/${item.ticket.id}`);
                  }}>
                    <TicketRowContent item={item} userId={userId} />
                  </a>
                  {item.match && <Snippet match={item.match} />}
                </li>
              ))}
            </ul>
            {cursor !== null && <button type="button" class="button small load-more" onClick={() => void loadMore()}>{t("search.more")}</button>}
          </>
        )}
      </section>
    </AppLayout>
  );
}
