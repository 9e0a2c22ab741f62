// The console's pages by path. Pages before sign-in (sign-in, forgotten password, the
// invitation and reset links) need no session; every other page needs one and sends the user
// to sign-in first, back to where they were going afterwards. A session limited to two-factor
// enrolment (the company requires it) reaches only the security page.
import { useEffect } from "preact/hooks";
import { Loading } from "./components/layout.tsx";
import { AdminsOnly } from "./components/settings-layout.tsx";
import { loadDirectory } from "./directory.ts";
import { loadSavedViews } from "./saved-views.ts";
import { connectLive, disconnectLive } from "./live.ts";
import { Account } from "./pages/account.tsx";
import { Inbox } from "./pages/inbox.tsx";
import { SearchPage } from "./pages/search.tsx";
import { ApiKeysPage } from "./pages/settings/api-keys.tsx";
import { AuditLogPage } from "./pages/settings/audit-log.tsx";
import { CollectorsPage } from "./pages/settings/collectors.tsx";
import { ArticlesPage } from "./pages/settings/articles.tsx";
import { AnnouncementsPage } from "./pages/settings/announcements.tsx";
import { WebhooksPage } from "./pages/settings/webhooks.tsx";
import { RulesPage } from "./pages/settings/rules.tsx";
import { PlayersPage } from "./pages/settings/players.tsx";
import { GamePage } from "./pages/settings/game.tsx";
import { GamesPage } from "./pages/settings/games.tsx";
import { TagsAndFieldsPage } from "./pages/settings/tags-and-fields.tsx";
import { TeamPage } from "./pages/settings/team.tsx";
import { TriagePage } from "./pages/settings/triage.tsx";
import { SlaReportPage } from "./pages/settings/sla-report.tsx";
import { SlaSettingsPage } from "./pages/settings/sla.tsx";
import { TicketPage } from "./pages/ticket.tsx";
import { IncidentPage } from "./pages/incident.tsx";
import { OutbreaksPage } from "./pages/settings/outbreaks.tsx";
import { ForgotPassword } from "./pages/forgot-password.tsx";
import { NotFound } from "./pages/not-found.tsx";
import { Security } from "./pages/security.tsx";
import { SetPassword } from "./pages/set-password.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { currentPath, navigate } from "./router.ts";
import { loadMe, me } from "./session.ts";

const PUBLIC_PAGES = new Set(["/sign-in", "/forgot-password", "/welcome", "/reset-password"]);
const VIEW_IDS = new Set(["mine", "unassigned", "open", "waiting", "on_hold", "closed_7d"]);

export function App() {
  const path = currentPath.value;
  const user = me.value;
  const isPublic = PUBLIC_PAGES.has(path);

  useEffect(() => {
    void loadMe().catch(() => (me.value = null));
  }, []);

  useEffect(() => {
    if (isPublic || user === undefined) return;
    if (user === null) navigate(`/sign-in?next=${encodeURIComponent(path + location.search)}`, { replace: true });
    else if (user.session.scope === "two_factor_enrolment" && path !== "/security") navigate("/security", { replace: true });
    else if (path === "/") navigate("/views/mine", { replace: true });
    else if (path === "/settings") navigate("/settings/api-keys", { replace: true });
  }, [isPublic, user, path]);

  // The live stream runs while a full session is signed in.
  const live = user?.session.scope === "full";
  useEffect(() => {
    if (live) {
      connectLive();
      void loadDirectory().catch(() => undefined);
      void loadSavedViews().catch(() => undefined);
    } else disconnectLive();
  }, [live]);

  if (path === "/sign-in") return <SignIn />;
  if (path === "/forgot-password") return <ForgotPassword />;
  if (path === "/welcome") return <SetPassword purpose="invitation" />;
  if (path === "/reset-password") return <SetPassword purpose="password_reset" />;
  if (!user) return <Loading />;
  if (path === "/account") return <Account user={user} />;
  const view = /^\/views\/([a-z_0-9]+)$/.exec(path);
  if (view && VIEW_IDS.has(view[1]!)) return <Inbox view={view[1]!} />;
  const ticket = /^\/tickets\/([0-9a-f-]{36})$/i.exec(path);
  if (ticket) return <TicketPage ticketId={ticket[1]!.toLowerCase()} />;
  const incident = /^\/incidents\/([0-9a-f-]{36})$/i.exec(path);
  if (incident) return <IncidentPage incidentId={incident[1]!.toLowerCase()} />;
  if (path === "/search") return <SearchPage />;
  if (path === "/security") return <Security user={user} />;
  if (path === "/settings" || path.startsWith("/settings/")) {
    if (user.user.role !== "admin") return <AdminsOnly />;
    if (path === "/settings/games") return <GamesPage />;
    const game = /^\/settings\/games\/([0-9a-f-]{36})$/i.exec(path);
    if (game) return <GamePage gameId={game[1]!.toLowerCase()} />;
    if (path === "/settings/api-keys") return <ApiKeysPage />;
    if (path === "/settings/audit-log") return <AuditLogPage />;
    if (path === "/settings/tags-and-fields") return <TagsAndFieldsPage />;
    if (path === "/settings/articles") return <ArticlesPage />;
    if (path === "/settings/announcements") return <AnnouncementsPage />;
    if (path === "/settings/collectors") return <CollectorsPage />;
    if (path === "/settings/webhooks") return <WebhooksPage />;
    if (path === "/settings/rules") return <RulesPage />;
    if (path === "/settings/players") return <PlayersPage />;
    if (path === "/settings/outbreaks") return <OutbreaksPage />;
    if (path === "/settings/team") return <TeamPage />;
    if (path === "/settings/triage") return <TriagePage />;
    if (path === "/settings/sla") return <SlaSettingsPage />;
    if (path === "/settings/sla-report") return <SlaReportPage />;
    if (path === "/settings") return <Loading />;
  }
  if (path === "/") return <Loading />;
  return <NotFound />;
}
