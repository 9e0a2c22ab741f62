// The frame of every page: a header with the application's name and, when signed in, the
// navigation and the user's menu; the page's heading gets focus when the page changes, so a
// screen reader announces it and the keyboard starts there.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";
import { currentPath, navigate } from "../router.ts";
import { connected } from "../live.ts";
import { gameName } from "../directory.ts";
import { INCIDENTS_EVERY_MS, loadIncidents, openIncidents } from "../incidents.ts";
import { me, setAvailable, signOut, STILL_HERE_EVERY_MS, stillHere } from "../session.ts";
import { Alert } from "./form.tsx";
import { GlobalShortcuts } from "./shortcuts-dialog.tsx";

export function PageTitle({ children, id }: { children: string; id?: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · ${t("app.name")}`;
    // The heading takes the focus when the page changes, never from a field the agent is already
    // in: a shortcut (r, n, /) may have put them there while the page was still loading.
    if (document.activeElement?.closest("input, textarea, select")) return;
    heading.current?.focus();
  }, [children]);
  return (
    <h1 tabIndex={-1} ref={heading} id={id}>
      {children}
    </h1>
  );
}

export function Link({ to, children, className, current }: { to: string; children: ComponentChildren; className?: string; current?: boolean }) {
  return (
    <a
      href={`/app${to}`}
      className={className}
      aria-current={(current ?? currentPath.value === to) ? "page" : undefined}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** Pages before sign-in: one centred card. */
export function PublicLayout({ children }: { children: ComponentChildren }) {
  return (
    <>
      <header class="top">
        <span class="brand">{t("app.name")}</span>
      </header>
      <main class="card">{children}</main>
    </>
  );
}

export function Loading() {
  return (
    <main class="card" aria-busy="true">
      <p role="status">{t("app.loading")}</p>
    </main>
  );
}

/**
 * The user's availability for routing, always in sight: a switch whose visible text says the
 * state (available or away), so that nobody takes tickets, or stops, without knowing it.
 */
function AvailabilitySwitch({ available, onError }: { available: boolean; onError: () => void }) {
  const [busy, setBusy] = useState(false);
  // While the console is open its session is used now and then, so that only a console closed
  // without signing out goes away by itself.
  useEffect(() => {
    const timer = setInterval(() => void stillHere().catch(() => undefined), STILL_HERE_EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <button
      type="button"
      role="switch"
      aria-checked={available}
      aria-label={t("availability.label")}
      title={t("availability.hint")}
      class={available ? "availability available" : "availability away"}
      disabled={busy}
      onClick={() => {
        setBusy(true);
        setAvailable(!available).catch(onError).finally(() => setBusy(false));
      }}
    >
      <span class="availability-dot" aria-hidden="true" />
      {available ? t("availability.available") : t("availability.away")}
    </button>
  );
}

/**
 * The banner of open incidents (docs/automation.md, "Outbreaks") on every page of a signed-in
 * user: an outbreak in one of their games, the number of its tickets and a link to the
 * incident. Read again when the page changes, on every incident change of the live stream, and every minute.
 */
function IncidentBanner() {
  const path = currentPath.value;
  useEffect(() => {
    void loadIncidents().catch(() => undefined);
  }, [path]);
  useEffect(() => {
    const timer = setInterval(() => void loadIncidents().catch(() => undefined), INCIDENTS_EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  const incidents = openIncidents.value;
  if (incidents.length === 0) return null;
  return (
    <section class="incident-banner" aria-label={t("incidents.banner")}>
      <ul>
        {incidents.map((incident) => (
          <li key={incident.id}>
            <strong>{t("incidents.open", { game: gameName(incident.gameId) })}</strong>{" "}
            <Link to={`/incidents/${incident.id}`}>{incident.title}</Link> <span>{t("incidents.tickets", { count: incident.ticketCount })}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Pages of a signed-in user. */
export function AppLayout({ children, wide = false }: { children: ComponentChildren; wide?: boolean }) {
  const user = me.value;
  const [error, setError] = useState<string>();
  const limited = user?.session.scope === "two_factor_enrolment";

  return (
    <>
      <header class="top">
        <span class="brand">{t("app.name")}</span>
        <nav aria-label={t("nav.label")}>
          {!limited && <Link to="/views/mine" current={currentPath.value.startsWith("/views/") || currentPath.value.startsWith("/tickets/") || currentPath.value === "/search"}>{t("nav.inbox")}</Link>}
          {!limited && user?.user.role === "admin" && (
            <Link to="/settings/api-keys" current={currentPath.value.startsWith("/settings")}>
              {t("nav.settings")}
            </Link>
          )}
          {!limited && <Link to="/account">{t("nav.account")}</Link>}
          <Link to="/security">{t("nav.security")}</Link>
        </nav>
        <span class="who">{user ? t("nav.signedInAs", { name: user.user.displayName || user.user.name }) : ""}</span>
        {user && !limited && <AvailabilitySwitch available={user.user.available} onError={() => setError(t("app.error"))} />}
        <button type="button" class="button small" onClick={() => void signOut(false).catch(() => setError(t("app.error")))}>
          {t("nav.signOut")}
        </button>
      </header>
      {connected.value === false && !limited && <p class="offline" role="status">{t("live.offline")}</p>}
      {user && !limited && <IncidentBanner />}
      <main class={wide ? "page wide" : "page"}>
        {error && <Alert>{error}</Alert>}
        {children}
      </main>
      {!limited && <GlobalShortcuts />}
    </>
  );
}
