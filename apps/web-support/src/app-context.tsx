// What every view of the page shares: the app's context (the API, the session, the language and
// how to report a failure), the page's addresses, the page heading that takes the focus, and the
// way back home. The views import it from here and app.tsx provides it, so no view imports the
// app that imports the views.
import { createContext } from "preact";
import { useContext, useEffect, useRef } from "preact/hooks";
import type { PlayerApi, SupportSession } from "./api.ts";
import type { Locale } from "./i18n.ts";

export interface AppContextValue {
  api: PlayerApi;
  session: SupportSession;
  locale: Locale;
  /** Reports a failed call: a refused session shows the expired page, anything else a message. */
  fail(error: unknown): void;
  /** Reads the session again (its verification changed) without leaving the page. */
  refreshSession(): Promise<void>;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error("useApp outside the app");
  return value;
}

export const href = {
  home: "#/",
  resource: (key: string) => `#/resources/${encodeURIComponent(key)}`,
  contact: "#/contact",
  /** The contact form for a question about a help article ("Still need help?"). */
  contactAbout: (key: string) => `#/contact/${encodeURIComponent(key)}`,
  ticket: (id: string) => `#/tickets/${encodeURIComponent(id)}`,
};

/** Sets the document title and moves focus to the page's heading when a page opens (screen readers announce it). */
export function usePageHeading(title: string) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = title;
    ref.current?.focus();
  }, [title]);
  return ref;
}

export function BackHome() {
  const { locale } = useApp();
  return (
    <p class="back">
      <a href={href.home}>{locale.t("nav.home")}</a>
    </p>
  );
}
