// The signed-in user's saved views: named searches, optionally narrowed to a built-in view,
// read once per session and kept up to date as the user saves and deletes them.
import { signal } from "@preact/signals";
import { call } from "./api.ts";

export interface SavedView {
  id: string;
  name: string;
  q: string;
  view: string | null;
  createdAt: string;
}

export const savedViews = signal<readonly SavedView[]>([]);

export async function loadSavedViews(): Promise<void> {
  savedViews.value = (await call<{ views: SavedView[] }>("GET", "/saved-views")).body.views;
}

export async function saveView(name: string, q: string, view: string | null): Promise<void> {
  await call("POST", "/saved-views", { name, q, ...(view ? { view } : {}) });
  await loadSavedViews();
}

export async function deleteSavedView(id: string): Promise<void> {
  await call("DELETE", `/saved-views/${id}`);
  savedViews.value = savedViews.value.filter((view) => view.id !== id);
}

/** The console's path that lists a saved view: the search page with its words and view. */
export function savedViewPath(view: Pick<SavedView, "q" | "view">): string {
  const query = new URLSearchParams({ q: view.q, ...(view.view ? { view: view.view } : {}) });
  return `/search?${query}`;
}
