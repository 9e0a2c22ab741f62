// The help center's search on the home page: a search landmark with a labelled field. Its
// results replace the list of articles while there is a search; the clear button or Escape
// brings the list back. The outcome ("Articles about …", "No help article matches …") is
// announced through a live region.
import { useRef, useState } from "preact/hooks";
import type { SearchResult } from "../api.ts";
import { href, useApp } from "../app-context.tsx";
import { directionOf } from "../i18n.ts";

/** The words searched and what they found; null: no search (the articles are listed). */
export type SearchState = { query: string; results: SearchResult[] | null } | null;

export function HelpSearch({ onChange }: { onChange: (state: SearchState) => void }) {
  const { api, locale, fail } = useApp();
  const { t } = locale;
  const [text, setText] = useState("");
  const input = useRef<HTMLInputElement>(null);
  // Only the latest search's answer counts (an earlier one may arrive after it).
  const latest = useRef(0);

  function clear() {
    latest.current += 1;
    setText("");
    onChange(null);
    input.current?.focus();
  }

  async function submit(event: Event) {
    event.preventDefault();
    const query = text.trim();
    if (query === "") {
      clear();
      return;
    }
    const id = ++latest.current;
    onChange({ query, results: null });
    try {
      const results = await api.search(query.slice(0, 200));
      if (id === latest.current) onChange({ query, results });
    } catch (error) {
      if (id === latest.current) onChange(null);
      fail(error);
    }
  }

  return (
    <form role="search" class="help-search" onSubmit={(event) => void submit(event)}>
      <label for="help-search">{t("help.searchLabel")}</label>
      <div class="help-search-row">
        <input
          id="help-search"
          type="search"
          maxLength={200}
          autoComplete="off"
          value={text}
          onInput={(event) => {
            const value = (event.currentTarget as HTMLInputElement).value;
            setText(value);
            // The field's own clear control (where the browser has one) empties it: the list comes back.
            if (value === "") clear();
          }}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              clear();
            }
          }}
        />
        {text !== "" && (
          <button type="button" class="button clear" onClick={clear} aria-label={t("help.clear")} title={t("help.clear")}>
            <span aria-hidden="true">×</span>
          </button>
        )}
        <button type="submit" class="button primary">
          {t("help.searchButton")}
        </button>
      </div>
    </form>
  );
}

/** The results of a search in place of the article list; the heading or "no results" is announced. */
export function HelpSearchResults({ state }: { state: NonNullable<SearchState> }) {
  const { locale } = useApp();
  const { t } = locale;
  const other = (language: string) => (language !== locale.language ? language : undefined);
  return (
    <section aria-labelledby="results-title" class="search-results">
      <div role="status" aria-live="polite">
        {state.results === null ? (
          <p id="results-title">{t("app.loading")}</p>
        ) : state.results.length === 0 ? (
          <p id="results-title">{t("help.noResults", { query: state.query })}</p>
        ) : (
          <h2 id="results-title">{t("help.results", { query: state.query })}</h2>
        )}
      </div>
      {state.results && state.results.length > 0 && (
        <ul class="list results">
          {state.results.map((result) => (
            <li key={result.key} lang={other(result.language)} dir={other(result.language) ? directionOf(result.language) : undefined}>
              <a href={href.resource(result.key)}>{result.title}</a>
              {result.section && <span class="muted">{result.section}</span>}
              {result.excerpt && <p class="excerpt">{result.excerpt}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
