// The inbox: the built-in views with their live counts beside a virtualized list of the view's
// tickets, newest activity first. Lists and counts follow the live stream: any change of a
// ticket of the user's games reads them again (at most every half second).
import { useEffect, useRef, useState } from "preact/hooks";
import { VList, type VListHandle } from "virtua";
import { call, type TicketListItem, type TicketPage, type ViewCount } from "../api.ts";
import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { SearchForm } from "../components/search-form.tsx";
import { statusName, TicketRowContent } from "../components/ticket-row.tsx";
import { dialogOpen } from "../components/shortcuts-dialog.tsx";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { lastChange, reloads } from "../live.ts";
import { navigate } from "../router.ts";
import { deleteSavedView, savedViewPath, savedViews } from "../saved-views.ts";
import { me } from "../session.ts";

const VIEWS = ["mine", "unassigned", "open", "waiting", "on_hold", "closed_7d"] as const;
/** The list's orders: latest activity first, or the SLA target due soonest first (the most overdue first). */
const SORTS = { activity: "sort=lastActivityAt&order=desc", sla: "sort=slaDueAt&order=asc" } as const;
type Sort = keyof typeof SORTS;
/** The user's chosen order is kept in the browser: it stays across views and reloads. */
const SORT_KEY = "inbox.sort";
function storedSort(): Sort {
  try {
    return localStorage.getItem(SORT_KEY) === "sla" ? "sla" : "activity";
  } catch {
    return "activity";
  }
}
const PAGE = 100;

/** The view's name in the interface's language. */
export const viewName = (id: string): string => t(`view.${id}` as MessageKey);
export { statusName };

/** Reads again after live changes, at most every `ms`. */
function useLiveRefresh(ms: number): number {
  const [tick, setTick] = useState(0);
  const change = lastChange.value;
  const reload = reloads.value;
  useEffect(() => {
    if (change === undefined && reload === 0) return;
    const timer = setTimeout(() => setTick((n) => n + 1), ms);
    return () => clearTimeout(timer);
  }, [change, reload, ms]);
  return tick;
}

export function Inbox({ view }: { view: string }) {
  const [counts, setCounts] = useState<ViewCount[]>();
  const [items, setItems] = useState<TicketListItem[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const [error, setError] = useState(false);
  const [sort, setSortState] = useState<Sort>(storedSort);
  const setSort = (next: Sort) => {
    setSortState(next);
    try {
      localStorage.setItem(SORT_KEY, next);
    } catch {
      // Storage refused (a private window's quota): the order holds for this page only.
    }
  };
  const list = useRef<VListHandle>(null);
  const loadingMore = useRef(false);
  const tick = useLiveRefresh(500);
  const userId = me.value?.user.id;

  useEffect(() => {
    call<{ views: ViewCount[] }>("GET", "/views").then(
      ({ body }) => setCounts(body.views),
      () => setError(true),
    );
  }, [tick]);

  useEffect(() => {
    let current = true;
    call<TicketPage>("GET", `/tickets?view=${encodeURIComponent(view)}&${SORTS[sort]}&limit=${PAGE}`).then(
      ({ body }) => {
        if (!current) return;
        setItems(body.tickets);
        setCursor(body.pagination.cursor);
        setError(false);
      },
      () => current && setError(true),
    );
    return () => {
      current = false;
    };
  }, [view, tick, sort]);

  useEffect(() => setSelected(0), [view, sort]);

  async function loadMore() {
    if (cursor === null || loadingMore.current) return;
    loadingMore.current = true;
    try {
      const { body } = await call<TicketPage>("GET", `/tickets?view=${encodeURIComponent(view)}&${SORTS[sort]}&limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`);
      setItems((before) => [...(before ?? []), ...body.tickets.filter((item) => !before?.some((b) => b.ticket.id === item.ticket.id))]);
      setCursor(body.pagination.cursor);
    } finally {
      loadingMore.current = false;
    }
  }

  // j/k move through the list, Enter opens (when focus is not in a field). One handler for the
  // page's life, reading the latest list and selection: a handler made for an earlier render
  // would move from a selection that is no longer the one shown.
  const latest = useRef({ items, selected });
  latest.current = { items, selected };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      const { items: rows, selected: current } = latest.current;
      if (target.closest("input, textarea, select") || dialogOpen() || event.isComposing || event.ctrlKey || event.metaKey || event.altKey || !rows?.length) return;
      if (event.key === "j" || event.key === "k") {
        // The focused row, when there is one, is where the user is.
        const focused = /^ticket-row-(\d+)$/.exec((document.activeElement as HTMLElement | null)?.id ?? "");
        const from = focused ? Number(focused[1]) : current;
        const next = Math.max(0, Math.min(rows.length - 1, from + (event.key === "j" ? 1 : -1)));
        latest.current = { items: rows, selected: next };
        setSelected(next);
        list.current?.scrollToIndex(next, { align: "nearest" });
        document.getElementById(`ticket-row-${next}`)?.focus();
      } else if (event.key === "Enter" && target.tagName !== "A" && target.tagName !== "BUTTON") {
        navigate(`/tickets/${rows[current]!.ticket.id}`);
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  return (
    <AppLayout wide>
      <div class="workspace">
        <nav class="views" aria-label={t("inbox.views")}>
          <ul>
            {VIEWS.map((id) => (
              <li key={id}>
                <Link to={`/views/${id}`} className="view-link">
                  <span>{viewName(id)}</span>
                  <span class="count" aria-label={t("inbox.count", { count: counts?.find((c) => c.id === id)?.count ?? 0 })}>
                    {counts?.find((c) => c.id === id)?.count ?? "…"}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
          {savedViews.value.length > 0 && (
            <>
              <h2 class="views-heading" id="saved-views-title">{t("saved.title")}</h2>
              <ul aria-labelledby="saved-views-title">
                {savedViews.value.map((saved) => (
                  <li key={saved.id} class="saved-view">
                    <Link to={savedViewPath(saved)} className="view-link">
                      <span>{saved.name}</span>
                    </Link>
                    <button type="button" class="remove-tag" aria-label={t("saved.delete", { name: saved.name })} onClick={() => void deleteSavedView(saved.id).catch(() => setError(true))}>
                      ×
                    </button>
                  </li>
                ))}
              </ul>
            </>
          )}
        </nav>
        <section class="list-pane" aria-labelledby="list-title">
          <SearchForm />
          <PageTitle id="list-title">{viewName(view)}</PageTitle>
          <div class="inbox-sort">
            <label for="inbox-sort">{t("inbox.sort")}</label>
            <select id="inbox-sort" value={sort} onChange={(event) => setSort((event.target as HTMLSelectElement).value as Sort)}>
              <option value="activity">{t("inbox.sortActivity")}</option>
              <option value="sla">{t("inbox.sortSla")}</option>
            </select>
          </div>
          {error && <p role="alert" class="alert error">{t("app.error")}</p>}
          {items === undefined ? (
            <p role="status">{t("app.loading")}</p>
          ) : items.length === 0 ? (
            <p>{t("inbox.empty")}</p>
          ) : (
            <div class="ticket-list" role="list" aria-label={t("inbox.listLabel", { view: viewName(view) })}>
              <VList
                // Preact's ref typing meets React's here: the handle is what VList gives.
                ref={list as never}
                style={{ height: "calc(100vh - 12rem)" }}
                onScroll={(offset) => {
                  const handle = list.current;
                  if (handle && offset + handle.viewportSize >= handle.scrollSize - 600) void loadMore();
                }}
              >
                {items.map((item, index) => (
                  <div role="listitem" key={item.ticket.id} class={`ticket-row${index === selected ? " selected" : ""}`}>
                    <a id={`ticket-row-${index}`} href={`/app/tickets/${item.ticket.id}`} onClick={(event) => {
                      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
                      event.preventDefault();
                      navigate(`/tickets/${item.ticket.id}`);
                    }} onFocus={() => setSelected(index)}>
                      <TicketRowContent item={item} userId={userId} />
                    </a>
                  </div>
                ))}
              </VList>
            </div>
          )}
          <p class="hint">{t("inbox.keys")}</p>
        </section>
      </div>
    </AppLayout>
  );
}
