// An incident of outbreak detection (docs/automation.md, "Outbreaks"): its game, when it opened,
// its tickets; "Answer all" sends the chosen canned response to every open ticket of it, each
// filled in in the ticket's language and sent as the user's reply; "Close" stops new tickets
// joining it; admins publish the game's announcement from it.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call } from "../api.ts";
import { Alert } from "../components/form.tsx";
import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { gameName } from "../directory.ts";
import { formatDateTime } from "../format.ts";
import { t } from "../i18n.ts";
import { loadIncidents, type Incident } from "../incidents.ts";
import { me } from "../session.ts";

interface IncidentTicket {
  id: string;
  runningId: number;
  playerName: string | null;
  status: "new" | "assigned" | "unassigned" | "waiting" | "on_hold" | "closed";
  language: string;
  createdAt: string;
}

interface CannedResponse {
  id: string;
  gameId: string | null;
  name: string;
}

interface Answer {
  answered: string[];
  skipped: string[];
  failed: { ticketId: string }[];
}

export function IncidentPage({ incidentId }: { incidentId: string }) {
  const [incident, setIncident] = useState<Incident>();
  const [tickets, setTickets] = useState<IncidentTicket[]>([]);
  const [responses, setResponses] = useState<CannedResponse[]>([]);
  const [chosen, setChosen] = useState("");
  const [announcement, setAnnouncement] = useState("");
  const [primary, setPrimary] = useState<string>();
  const [missing, setMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const admin = me.value?.user.role === "admin";

  const load = () =>
    call<{ incident: Incident; tickets: IncidentTicket[] }>("GET", `/incidents/${incidentId}`).then(
      ({ body }) => {
        setIncident(body.incident);
        setTickets(body.tickets);
        return body.incident;
      },
      (caught: unknown) => {
        if (caught instanceof ApiError && caught.status === 404) setMissing(true);
        else setMessage({ kind: "error", text: t("app.error") });
        return undefined;
      },
    );

  useEffect(() => {
    void load().then((loaded) => {
      if (!loaded) return;
      void call<{ responses: CannedResponse[] }>("GET", "/canned-responses").then(
        ({ body }) => setResponses(body.responses.filter((response) => response.gameId === null || response.gameId === loaded.gameId)),
        () => undefined,
      );
    });
    if (admin) void call<{ primaryLanguage: string }>("GET", "/settings/announcements").then(({ body }) => setPrimary(body.primaryLanguage), () => undefined);
  }, [incidentId]);

  async function run(work: () => Promise<string>) {
    setBusy(true);
    setMessage(undefined);
    try {
      setMessage({ kind: "success", text: await work() });
      await load();
      void loadIncidents().catch(() => undefined);
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    } finally {
      setBusy(false);
    }
  }

  const answerAll = (event: Event) => {
    event.preventDefault();
    if (!chosen) {
      setMessage({ kind: "error", text: t("incident.chooseResponse") });
      document.getElementById("incident-canned")?.focus();
      return;
    }
    void run(async () => {
      const { body } = await call<Answer>("POST", `/incidents/${incidentId}/answer`, { cannedResponseId: chosen });
      return t("incident.answered", { answered: body.answered.length, skipped: body.skipped.length, failed: body.failed.length });
    });
  };

  const publish = (event: Event) => {
    event.preventDefault();
    if (!primary || !announcement.trim()) {
      setMessage({ kind: "error", text: t("incident.announcementRequired") });
      document.getElementById("incident-announcement")?.focus();
      return;
    }
    void run(async () => {
      await call("POST", `/incidents/${incidentId}/announcement`, { shortContent: { [primary]: announcement.trim() } });
      return t("incident.published", { game: gameName(incident!.gameId) });
    });
  };

  const close = () => void run(async () => {
    await call("POST", `/incidents/${incidentId}/close`);
    return t("incident.closed");
  });

  if (missing) {
    return (
      <AppLayout>
        <PageTitle>{t("incident.notFound")}</PageTitle>
        <p>{t("incident.notFoundHint")}</p>
      </AppLayout>
    );
  }
  if (!incident) {
    return (
      <AppLayout>
        <PageTitle>{t("incident.heading")}</PageTitle>
        {message ? <Alert kind={message.kind}>{message.text}</Alert> : <p role="status">{t("app.loading")}</p>}
      </AppLayout>
    );
  }
  const open = incident.status === "open";
  return (
    <AppLayout>
      <PageTitle>{t("incident.title", { title: incident.title })}</PageTitle>
      <p class="hint">
        {t(open ? "incident.summaryOpen" : "incident.summaryClosed", { game: gameName(incident.gameId), opened: formatDateTime(incident.openedAt), count: incident.ticketCount })}
      </p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <section aria-labelledby="incident-tickets-title">
        <h2 id="incident-tickets-title">{t("incident.ticketsHeading")}</h2>
        <table class="settings-table" aria-labelledby="incident-tickets-title">
          <thead>
            <tr>
              <th scope="col">{t("incident.ticket")}</th>
              <th scope="col">{t("incident.player")}</th>
              <th scope="col">{t("incident.status")}</th>
              <th scope="col">{t("incident.language")}</th>
              <th scope="col">{t("incident.created")}</th>
            </tr>
          </thead>
          <tbody>
            {tickets.map((ticket) => (
              <tr key={ticket.id}>
                <td>
                  <Link to={`/tickets/${ticket.id}`}>{`#${ticket.runningId}`}</Link>
                </td>
                <td>{ticket.playerName ?? t("incident.noName")}</td>
                <td>{t(`status.${ticket.status}`)}</td>
                <td>{ticket.language}</td>
                <td>{formatDateTime(ticket.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="incident-answer-title">
        <h2 id="incident-answer-title">{t("incident.answerHeading")}</h2>
        <form class="inline-form" onSubmit={answerAll} noValidate>
          <div class="field">
            <label for="incident-canned">{t("incident.cannedLabel")}</label>
            <p class="hint" id="incident-canned-hint">
              {t("incident.cannedHint")}
            </p>
            <select id="incident-canned" aria-describedby="incident-canned-hint" value={chosen} onChange={(event) => setChosen((event.currentTarget as HTMLSelectElement).value)}>
              <option value="">{t("incident.cannedNone")}</option>
              {responses.map((response) => (
                <option key={response.id} value={response.id}>
                  {response.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="button primary" disabled={busy}>
            {t("incident.answerAll")}
          </button>
        </form>
      </section>
      {admin && (
        <section aria-labelledby="incident-announcement-title">
          <h2 id="incident-announcement-title">{t("incident.announcementHeading")}</h2>
          <form class="inline-form" onSubmit={publish} noValidate>
            <div class="field">
              <label for="incident-announcement">{t("incident.announcementLabel", { game: gameName(incident.gameId) })}</label>
              <p class="hint" id="incident-announcement-hint">
                {t("incident.announcementHint")}
              </p>
              <textarea id="incident-announcement" aria-describedby="incident-announcement-hint" rows={3} value={announcement} onInput={(event) => setAnnouncement((event.currentTarget as HTMLTextAreaElement).value)} />
            </div>
            <button type="submit" class="button" disabled={busy}>
              {t("incident.publish")}
            </button>
          </form>
        </section>
      )}
      {open && (
        <section aria-labelledby="incident-close-title">
          <h2 id="incident-close-title">{t("incident.closeHeading")}</h2>
          <p class="hint">{t("incident.closeHint")}</p>
          <button type="button" class="button" disabled={busy} onClick={close}>
            {t("incident.close")}
          </button>
        </section>
      )}
    </AppLayout>
  );
}
