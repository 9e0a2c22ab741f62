// The page for a session code that is missing, unknown or expired: nothing to do here but go
// back to the game, which opens a new session.
import { useEffect, useRef } from "preact/hooks";
import type { Locale } from "../i18n.ts";

export function ExpiredView({ locale, known }: { locale: Locale; known: boolean }) {
  const { t } = locale;
  const title = known ? t("expired.title") : t("unknown.title");
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = title;
    heading.current?.focus();
  }, [title]);
  return (
    <main id="main" class="page expired">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      <p>{known ? t("expired.text") : t("unknown.text")}</p>
    </main>
  );
}
