// Paths of the console, all under /app/. The current path is a signal: navigating pushes a
// history entry and re-renders; the browser's back and forward buttons work.
import { signal } from "@preact/signals";

export const BASE = "/app";

/** The path below /app ("/" for the home page), without the query. */
export const currentPath = signal(pathOf(location.pathname));
/** The query of the current address ("?q=..."), so that a page re-renders when only the query changes. */
export const currentQuery = signal(location.search);

function pathOf(pathname: string): string {
  const below = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return below === "" ? "/" : below;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${path}`;
  if (options.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  const next = new URL(url, location.origin);
  currentPath.value = pathOf(next.pathname);
  currentQuery.value = next.search;
}

addEventListener("popstate", () => {
  currentPath.value = pathOf(location.pathname);
  currentQuery.value = location.search;
});

/** A path the console may go back to after signing in: one of its own, never another site. */
export function safeReturnPath(value: string | null): string {
  if (value === null || !value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return "/";
  return value;
}

/** The query parameter `name` of the current address. */
export function queryParameter(name: string): string | null {
  return new URLSearchParams(currentQuery.value).get(name);
}
