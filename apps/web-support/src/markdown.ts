// The articles' Markdown renderer (marked and DOMPurify, about 40% of the page's script) is a
// chunk of its own: the home page, the contact form and the chat never need it, and on a slow
// phone every kilobyte of the first script delays the session request. It is asked for as soon
// as the first page is on screen, beside the session, so an article rarely waits for it.
import { useEffect, useState } from "preact/hooks";
import type * as ArticleMarkdown from "@support/article-markdown";

type Renderer = typeof ArticleMarkdown;

let loading: Promise<Renderer> | undefined;

/** The renderer's chunk, asked for once. */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import("@support/article-markdown");
  // A failed load (a lost connection) may be tried again by the next article.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The sanitized HTML of `body`, or null until the renderer is here (or when there is no body). */
export function useRenderedMarkdown(body: string | null | undefined): string | null {
  const [html, setHtml] = useState<string | null>(null);
  useEffect(() => {
    setHtml(null);
    if (!body) return;
    let current = true;
    loadMarkdown().then(
      ({ renderMarkdown }) => {
        if (current) setHtml(renderMarkdown(body));
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [body]);
  return html;
}
