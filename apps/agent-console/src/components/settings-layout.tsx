// The frame of the settings pages (admins only): the page's heading, and beside it the list of
// the settings' sections. The pages are drawn for admins only (app.tsx); an agent who opens a
// settings address sees AdminsOnly, and nothing is asked of the API for them.
import type { ComponentChildren } from "preact";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { currentPath } from "../router.ts";
import { AppLayout, Link, PageTitle } from "./layout.tsx";

/** The settings' sections, in the order of the menu. */
export const SETTINGS_SECTIONS = [
  { path: "/settings/api-keys", label: "settings.apiKeys" },
  { path: "/settings/games", label: "settings.games" },
  { path: "/settings/team", label: "settings.team" },
  { path: "/settings/tags-and-fields", label: "settings.tagsAndFields" },
  { path: "/settings/triage", label: "settings.triage" },
  { path: "/settings/rules", label: "settings.rules" },
  { path: "/settings/collectors", label: "settings.collectors" },
  { path: "/settings/articles", label: "settings.articles" },
  { path: "/settings/announcements", label: "settings.announcements" },
  { path: "/settings/webhooks", label: "settings.webhooks" },
  { path: "/settings/players", label: "settings.players" },
  { path: "/settings/outbreaks", label: "settings.outbreaks" },
  { path: "/settings/sla", label: "settings.sla" },
  { path: "/settings/sla-report", label: "settings.slaReport" },
  { path: "/settings/audit-log", label: "settings.auditLog" },
] as const satisfies readonly { path: string; label: MessageKey }[];

/** What an agent sees at a settings address: that the settings are for admins. */
export function AdminsOnly() {
  return (
    <AppLayout>
      <PageTitle>{t("settings.title")}</PageTitle>
      <p>{t("settings.adminsOnly")}</p>
    </AppLayout>
  );
}

export function SettingsLayout({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <AppLayout wide>
      <div class="settings">
        <nav class="settings-nav" aria-label={t("settings.title")}>
          <p class="settings-heading">{t("settings.title")}</p>
          <ul>
            {SETTINGS_SECTIONS.map((section) => (
              <li key={section.path}>
                <Link to={section.path} className="view-link" current={currentPath.value === section.path || currentPath.value.startsWith(`${section.path}/`)}>
                  {t(section.label)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="settings-pane">
          <PageTitle>{title}</PageTitle>
          {children}
        </div>
      </div>
    </AppLayout>
  );
}
