// The page for a session code that is missing, not valid or expired, and for a link to support
// that the service refused (the gateway sends a browser here with #/refused/<reason>). The
// player cannot open a session here (only the game can, for its signed-in player), so the page
// says why and how to get back to support, after an expiry that messages sent are not lost (a
// code that never worked and a refused link had no conversation to keep), and offers to try
// the code again (a refusal seen while the service restarted clears up by itself) and to go
// back where the player was.
import { useEffect, useRef } from "preact/hooks";
import type { Locale } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";

const REFUSALS = ["token", "resource", "link", "busy", "unavailable"] as const;
export type Refusal = (typeof REFUSALS)[number];

/** The refusal the address names (`#/refused/<reason>`; a bad language counts as a bad link), or null. */
export function refusalOf(hash: string): Refusal | null {
  const match = /^#\/refused\/([a-z]+)$/.exec(hash);
  if (!match) return null;
  const reason = match[1] === "language" ? "link" : match[1];
  return (REFUSALS as readonly string[]).includes(reason!) ? (reason as Refusal) : "link";
}

export function RefusedView({ locale, reason }: { locale: Locale; reason: Refusal }) {
  return <Explanation locale={locale} title={locale.t("refused.title")} text={locale.t(`refused.${reason}` as MessageKey)} />;
}

export function ExpiredView({ locale, known, onRetry }: { locale: Locale; known: boolean; onRetry?: () => void }) {
  const { t } = locale;
  return <Explanation locale={locale} title={known ? t("expired.title") : t("unknown.title")} text={known ? t("expired.text") : t("unknown.text")} kept={known} {...(onRetry ? { onRetry } : {})} />;
}

function Explanation({ locale, title, text, kept = false, onRetry }: { locale: Locale; title: string; text: string; kept?: boolean; onRetry?: () => void }) {
  const { t } = locale;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = title;
    heading.current?.focus();
    // Without a session no game's branding is known: the page follows the device's light or dark
    // setting (a dark in-game web view says dark) instead of a white page. An expired session
    // keeps the look its game gave the page.
    const root = document.documentElement;
    if (!root.dataset.scheme) root.dataset.scheme = "system";
  }, [title]);
  return (
    <main id="main" class="page expired">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      <p>{text}</p>
      {kept && <p>{t("expired.kept")}</p>}
      <p class="actions">
        {onRetry && (
          <button type="button" class="button" onClick={onRetry}>
            {t("app.retry")}
          </button>
        )}
        {history.length > 1 && (
          <button type="button" class="button" onClick={() => history.back()}>
            {t("expired.back")}
          </button>
        )}
      </p>
    </main>
  );
}
