// The page's shell: loads the session and its language's catalog (nothing is shown in another
// language meanwhile, only the loading state), routes by the URL hash
// (#/, #/resources/<key>, #/contact, #/contact/<article key>, #/tickets/<id>) so any static host can serve it, and
// turns a refused session code (403) anywhere into the expired page (a code that worked in this
// tab) or the not-valid page (one that never did).
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, apiBase, createPlayerApi, type SupportSession } from "./api.ts";
import { applyBranding, logoSource } from "./branding.ts";
import { AppContext, href, type AppContextValue } from "./app-context.tsx";
import { browserLanguage, loadLocale, type Locale } from "./i18n.ts";
import { loadMarkdown } from "./markdown.ts";
import type { PageData } from "./page-data.ts";
import { rememberAccepted, wasAccepted, type TakenCode } from "./session-code.ts";
import { ContactView } from "./views/contact.tsx";
import { ConversationView } from "./views/conversation.tsx";
import { ExpiredView, RefusedView, refusalOf } from "./views/expired.tsx";
import { HomeView } from "./views/home.tsx";
import { ResourceView } from "./views/resource.tsx";

export type Route = { name: "home" } | { name: "resource"; key: string } | { name: "contact"; article?: string } | { name: "ticket"; id: string };

export function parseRoute(hash: string): Route {
  const [, first, second] = hash.replace(/^#/, "").split("/");
  if (first === "resources" && second) return { name: "resource", key: decodeURIComponent(second) };
  if (first === "tickets" && second) return { name: "ticket", id: decodeURIComponent(second) };
  if (first === "contact") return second ? { name: "contact", article: decodeURIComponent(second) } : { name: "contact" };
  return { name: "home" };
}

function applyLocale(locale: Locale): void {
  document.documentElement.lang = locale.language;
  document.documentElement.dir = locale.dir;
}

type Phase = { name: "loading" } | { name: "ready"; session: SupportSession; locale: Locale } | { name: "expired"; known: boolean } | { name: "error" };

/** `served`: what the page was served with for the fresh code (page-data.ts), if anything. */
export function App({ taken, served = null }: { taken: TakenCode; served?: PageData | null }) {
  const api = useRef(taken.code ? createPlayerApi(taken.code) : null).current;
  const pageData = useRef(served);
  const [phase, setPhase] = useState<Phase>(api ? { name: "loading" } : { name: "expired", known: false });
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  const [problem, setProblem] = useState<string | null>(null);
  // The browser's language, for the pages shown before (or instead of) a session: loaded at once,
  // beside the session (usually the same catalog, then one request).
  const [browserLocale, setBrowserLocale] = useState<Locale | null>(null);

  useEffect(() => {
    void loadLocale(browserLanguage()).then(setBrowserLocale);
  }, []);

  useEffect(() => {
    const onHash = () => {
      setProblem(null);
      setRoute(parseRoute(location.hash));
    };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  const load = useCallback(async () => {
    if (!api) return;
    setPhase({ name: "loading" });
    // What the page was served with is used once, for the first load of a fresh code.
    const served = pageData.current;
    pageData.current = null;
    // The home page's conversations travel beside the session (not after it) when the page opens on it.
    if (parseRoute(location.hash).name === "home") api.prefetchTickets(served?.tickets);
    // The articles' renderer, beside the session: a session opened on an article shows it first.
    void loadMarkdown();
    try {
      const session = served?.session ?? (await api.session());
      rememberAccepted(taken.code!);
      const locale = await loadLocale(session.language);
      applyLocale(locale);
      applyBranding(session.branding);
      // A session opened on a resource shows it first, once; "home" goes to the home page.
      if (taken.fresh && session.resource && parseRoute(location.hash).name === "home") {
        history.replaceState(history.state, "", location.pathname + location.search + href.resource(session.resource.key));
        setRoute(parseRoute(location.hash));
      }
      setPhase({ name: "ready", session, locale });
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) setPhase({ name: "expired", known: wasAccepted(taken.code!) });
      else setPhase({ name: "error" });
    }
  }, [api, taken.fresh]);

  useEffect(() => {
    void load();
  }, [load]);

  const refusal = refusalOf(location.hash);
  if (refusal !== null || phase.name !== "ready") {
    const locale = browserLocale;
    // Until the browser's catalog is here, the loading state without its text (never English first).
    if (!locale)
      return (
        <main id="main" class="page">
          <p role="status" aria-busy="true" />
        </main>
      );
    applyLocale(locale);
    // The gateway refused the link that brought the player here: that, not an earlier session of the tab.
    if (refusal !== null) return <RefusedView locale={locale} reason={refusal} />;
    if (phase.name === "expired") return <ExpiredView locale={locale} known={phase.known} {...(api ? { onRetry: () => void load() } : {})} />;
    return (
      <main id="main" class="page">
        {phase.name === "loading" ? (
          <p role="status">{locale.t("app.loading")}</p>
        ) : (
          <div role="alert">
            <p>{locale.t("app.error")}</p>
            <button type="button" class="button" onClick={() => void load()}>
              {locale.t("app.retry")}
            </button>
          </div>
        )}
      </main>
    );
  }

  const { session, locale } = phase;
  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.status === 403) setPhase({ name: "expired", known: wasAccepted(taken.code!) });
    else setProblem(locale.t("app.error"));
  };
  const refreshSession = async () => {
    const fresh = await api!.session();
    setPhase({ name: "ready", session: fresh, locale });
  };
  const context: AppContextValue = { api: api!, session, locale, fail, refreshSession };
  const logo = logoSource(session.branding, apiBase());

  return (
    <AppContext.Provider value={context}>
      <header class="top">
        {logo ? (
          <p class="game-name brand">
            <img class="logo" src={logo} alt="" />
            <span>{session.game.name}</span>
          </p>
        ) : (
          <p class="game-name">{session.game.name}</p>
        )}
      </header>
      <main id="main" class="page">
        {problem && (
          <p class="notice error" role="alert">
            {problem}
          </p>
        )}
        {route.name === "home" && <HomeView />}
        {route.name === "resource" && <ResourceView key={route.key} resourceKey={route.key} />}
        {route.name === "contact" && <ContactView key={route.article ?? ""} article={route.article} />}
        {route.name === "ticket" && <ConversationView key={route.id} ticketId={route.id} />}
      </main>
    </AppContext.Provider>
  );
}
