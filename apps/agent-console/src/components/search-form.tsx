// The search field of the inbox and the search page: Enter searches (the search page shows the
// results); `/` focuses it from anywhere outside a field.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { SEARCH_INPUT_ID } from "./shortcuts-dialog.tsx";

/** The longest search the API takes. */
export const MAX_SEARCH_LENGTH = 200;

export function SearchForm({ initial = "", autoFocus = false }: { initial?: string; autoFocus?: boolean }) {
  const [text, setText] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  // After the page's heading took focus (the form comes after it): the page exists to type a search.
  useLayoutEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  useEffect(() => setText(initial), [initial]);
  return (
    <form
      role="search"
      class="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        const q = text.trim();
        if (q !== "") navigate(`/search?q=${encodeURIComponent(q)}`);
      }}
    >
      <label for={SEARCH_INPUT_ID}>{t("search.label")}</label>
      <input
        id={SEARCH_INPUT_ID}
        type="search"
        name="q"
        value={text}
        maxLength={MAX_SEARCH_LENGTH}
        autoComplete="off"
        aria-describedby="search-hint"
        ref={input}
        onInput={(event) => setText((event.target as HTMLInputElement).value)}
      />
      <button type="submit" class="button small">{t("search.submit")}</button>
      <p id="search-hint" class="hint">{t("search.hint")}</p>
    </form>
  );
}
