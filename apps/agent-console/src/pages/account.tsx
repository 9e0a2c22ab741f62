// The signed-in user's account: who they are in this company (with their skills), their
// session, two-factor, and signing out of every device.
import { useState } from "preact/hooks";
import type { Me } from "../api.ts";
import { Alert } from "../components/form.tsx";
import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { language, t } from "../i18n.ts";
import { signOut } from "../session.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

export function Account({ user }: { user: Me }) {
  const [error, setError] = useState<string>();
  return (
    <AppLayout>
      <PageTitle>{t("account.title")}</PageTitle>
      <dl class="facts">
        <dt>{t("account.name")}</dt>
        <dd>{user.user.name}</dd>
        <dt>{t("account.displayName")}</dt>
        <dd>{user.user.displayName}</dd>
        <dt>{t("account.email")}</dt>
        <dd>{user.user.email}</dd>
        <dt>{t("account.role")}</dt>
        <dd>{user.user.role === "admin" ? t("role.admin") : t("role.agent")}</dd>
        <dt>{t("account.games")}</dt>
        <dd>{user.user.role === "admin" ? t("account.allGames") : t("account.gameCount", { count: user.gameIds.length })}</dd>
        {/* Skills are tag names, which hold no comma: a comma-separated list is unambiguous in any language. */}
        <dt>{t("account.skills")}</dt>
        <dd>{user.user.skills.length === 0 ? t("account.noSkills") : user.user.skills.join(", ")}</dd>
        <dt>{t("account.twoFactor")}</dt>
        <dd>
          {user.twoFactor.enabled ? t("security.on") : t("security.off")} (<Link to="/security">{t("nav.security")}</Link>)
        </dd>
        <dt>{t("account.sessionEnds")}</dt>
        <dd>{t("account.sessionEndsValue", { idle: dateTime.format(new Date(user.session.idleExpiresAt)), end: dateTime.format(new Date(user.session.expiresAt)) })}</dd>
      </dl>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t("account.sessionsTitle")}</h2>
        <p class="hint">{t("account.sessionsHint")}</p>
        {error && <Alert>{error}</Alert>}
        <button type="button" class="button" onClick={() => void signOut(true).catch(() => setError(t("app.error")))}>
          {t("nav.signOutEverywhere")}
        </button>
      </section>
    </AppLayout>
  );
}
