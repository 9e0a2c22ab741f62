// The company's audit log: who did what, when, from where, and what the object was before and
// after; filtered by kind of action, person and dates, a page at a time, and downloadable as CSV
// or JSON with the same filters.
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { call, type AuditEntry, type Team } from "../../api.ts";
import { Alert } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { colleagues } from "../../directory.ts";
import { language, t } from "../../i18n.ts";
import { en, type MessageKey } from "../../messages/en.ts";
import { isRequesterType, requesterLabel } from "./players.tsx";
import { actorName } from "./api-keys.tsx";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "medium" });
const PAGE = 50;

/** Names of the company's users (deactivated ones too) and games by id, from the team settings: a user's games read as names. */
const teamNames = signal<{ users: ReadonlyMap<string, string>; games: ReadonlyMap<string, string> }>({ users: new Map(), games: new Map() });

function loadTeamNames(): void {
  call<Team>("GET", "/settings/users").then(
    ({ body }) => (teamNames.value = { users: new Map(body.users.map((user) => [user.id, user.name])), games: new Map(body.games.map((game) => [game.id, game.name])) }),
    // Without the names, ids are shown: nothing else is lost.
    () => undefined,
  );
}

/** The kinds of action the filter offers: a family of actions each (the API's `action=<family>.`). */
const FAMILIES = ["sign_in.", "session.", "password.", "two_factor.", "user.", "api_key.", "game.", "environment.", "tag.", "field.", "collector.", "resource.", "announcement.", "webhook.", "player.", "rule.", "sla.", "triage.", "outbreaks.", "canned_response.", "tenant."] as const;

interface Filters {
  action: string;
  actorId: string;
  since: string;
  until: string;
}

/** The query of the filters (dates are whole days in the browser's time zone; `until` includes its day). */
function queryOf(filters: Filters): string {
  const query = new URLSearchParams();
  if (filters.action) query.set("action", filters.action);
  if (filters.actorId) query.set("actorId", filters.actorId);
  if (filters.since) query.set("since", new Date(`${filters.since}T00:00:00`).toISOString());
  if (filters.until) {
    const end = new Date(`${filters.until}T00:00:00`);
    end.setDate(end.getDate() + 1);
    query.set("until", end.toISOString());
  }
  return query.toString();
}

/** The action in words; an action this console has no words for (a newer one) as its name. */
function actionLabel(action: string): string {
  const key = `audit.action.${action}`;
  return key in en ? t(key as MessageKey) : action;
}

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A setting's value in words: a time in the reader's format, a list by commas, others as JSON. */
function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? t("audit.yes") : t("audit.no");
  if (typeof value === "string") return isoTime.test(value) ? dateTime.format(new Date(value)) : (teamNames.value.games.get(value) ?? value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.map((item) => teamNames.value.games.get(item) ?? item).join(", ");
  // A collector's fields: each by its label and type, required ones marked.
  if (Array.isArray(value) && value.every((item) => typeof item === "object" && item !== null && "label" in item && "type" in item)) {
    return (value as { label: unknown; type: unknown; required?: unknown }[]).map((field) => `${String(field.label)} (${String(field.type)}${field.required === true ? ", *" : ""})`).join(", ");
  }
  // Texts per language (an article's title, section and body, an announcement's texts): each by its language.
  if (typeof value === "object" && Object.keys(value).length > 0 && Object.entries(value).every(([key, text]) => /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(key) && (typeof text === "string" || text === null))) {
    return Object.entries(value as Record<string, string | null>).map(([code, text]) => `${code}: ${text ?? "—"}`).join(" · ");
  }
  // An image (a game's logo) by its type, pixels, size and the start of its hash, never its bytes.
  const image = value as { sha256?: unknown; size?: unknown; width?: unknown; height?: unknown; contentType?: unknown };
  if (typeof image.sha256 === "string" && typeof image.size === "number") {
    return `${String(image.contentType).replace("image/", "").toUpperCase()} ${String(image.width)}×${String(image.height)}, ${Math.max(1, Math.round(image.size / 1024))} KiB, ${image.sha256.slice(0, 8)}`;
  }
  return JSON.stringify(value);
}

/** A setting's value in words, for the settings whose values are codes (who asked for a deletion, as the Players page says it). */
function showSetting(name: string, value: unknown): string {
  if (name === "requestedBy" && isRequesterType(value)) return requesterLabel({ type: value, id: null });
  return show(value);
}

/** A setting's name in words, the object's own words first (a rule's `enabled` is not a webhook's); one this console has no words for as it is. */
function settingLabel(name: string, targetType: string | undefined): string {
  const key = [`audit.setting.${targetType}.${name}`, `audit.setting.${name}`].find((candidate) => candidate in en);
  return key ? t(key as MessageKey) : name;
}

const isEmpty = (value: unknown) => value === null || value === undefined || (Array.isArray(value) && value.length === 0);

/** What changed: each setting whose value differs, as "name: before → after"; a creation's or removal's empty settings are left out. */
function Changes({ entry }: { entry: AuditEntry }) {
  const names = [...new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])];
  const changed = names.filter((name) =>
    entry.before === null ? !isEmpty(entry.after?.[name]) : entry.after === null ? !isEmpty(entry.before[name]) : JSON.stringify(entry.before[name]) !== JSON.stringify(entry.after[name]),
  );
  if (changed.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="changes">
      {changed.map((name) => (
        <li key={name}>
          <span class="change-name">{settingLabel(name, entry.target?.type)}</span>:{" "}
          {entry.before === null ? showSetting(name, entry.after?.[name]) : entry.after === null ? `${showSetting(name, entry.before[name])} → —` : `${showSetting(name, entry.before[name])} → ${showSetting(name, entry.after[name])}`}
        </li>
      ))}
    </ul>
  );
}

/** Whom or what the entry is about: the object's name, or the user when another acted on them. */
function Subject({ entry }: { entry: AuditEntry }) {
  // A webhook by its URL (its entries without settings carry it in their detail).
  const name = entry.after?.["name"] ?? entry.before?.["name"] ?? entry.after?.["title"] ?? entry.before?.["title"] ?? entry.after?.["url"] ?? entry.before?.["url"] ?? entry.detail["url"];
  if (typeof name === "string") return <span class="subject">{t("audit.named", { name })}</span>;
  // A player by the game's player id (entries name players by ids, never by email).
  if (entry.target?.type === "player") {
    const playerId = entry.detail["playerId"];
    return <span class="subject">{t("audit.player", { id: typeof playerId === "string" ? playerId : entry.target.id })}</span>;
  }
  if (entry.userId !== null && entry.userId !== entry.actor.id) {
    const name = colleagues.value.get(entry.userId)?.name ?? teamNames.value.users.get(entry.userId);
    return <span class="subject">{t("audit.about", { name: name ?? t("settings.formerUser") })}</span>;
  }
  return null;
}

export function AuditLogPage() {
  const [filters, setFilters] = useState<Filters>({ action: "", actorId: "", since: "", until: "" });
  const [entries, setEntries] = useState<AuditEntry[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const query = queryOf(filters);

  useEffect(loadTeamNames, []);

  useEffect(() => {
    let current = true;
    setEntries(undefined);
    setError(undefined);
    call<{ entries: AuditEntry[]; nextBefore: string | null }>("GET", `/audit-log?limit=${PAGE}${query ? `&${query}` : ""}`).then(
      ({ body }) => {
        if (!current) return;
        setEntries(body.entries);
        setNext(body.nextBefore);
      },
      () => current && setError(t("app.error")),
    );
    return () => {
      current = false;
    };
  }, [query]);

  async function more() {
    if (next === null) return;
    try {
      const { body } = await call<{ entries: AuditEntry[]; nextBefore: string | null }>("GET", `/audit-log?limit=${PAGE}&before=${next}${query ? `&${query}` : ""}`);
      setEntries([...(entries ?? []), ...body.entries]);
      setNext(body.nextBefore);
    } catch {
      setError(t("app.error"));
    }
  }

  const set = (name: keyof Filters) => (event: Event) => setFilters({ ...filters, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const people = [...colleagues.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  const exportHref = (format: "csv" | "json") => `/agent-api/audit-log/export?format=${format}${query ? `&${query}` : ""}`;

  return (
    <SettingsLayout title={t("settings.auditLog")}>
      <p class="hint">{t("audit.intro")}</p>
      <form class="filters" aria-label={t("audit.filters")} onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="audit-action">{t("audit.action")}</label>
          <select id="audit-action" value={filters.action} onChange={set("action")}>
            <option value="">{t("audit.allActions")}</option>
            {FAMILIES.map((family) => (
              <option key={family} value={family}>
                {t(`audit.family.${family.slice(0, -1)}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-actor">{t("audit.actor")}</label>
          <select id="audit-actor" value={filters.actorId} onChange={set("actorId")}>
            <option value="">{t("audit.anyone")}</option>
            {people.map((person) => (
              <option key={person.id} value={person.id}>
                {person.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-since">{t("audit.since")}</label>
          <input id="audit-since" type="date" value={filters.since} onChange={set("since")} />
        </div>
        <div class="field">
          <label for="audit-until">{t("audit.until")}</label>
          <input id="audit-until" type="date" value={filters.until} onChange={set("until")} />
        </div>
        <p class="exports">
          <a class="button small" href={exportHref("csv")} download>
            {t("audit.exportCsv")}
          </a>{" "}
          <a class="button small" href={exportHref("json")} download>
            {t("audit.exportJson")}
          </a>
        </p>
      </form>
      {error && <Alert>{error}</Alert>}
      {entries === undefined ? (
        !error && <p role="status">{t("app.loading")}</p>
      ) : entries.length === 0 ? (
        <p role="status">{t("audit.none")}</p>
      ) : (
        <>
          <table class="settings-table audit-table">
            <caption class="visually-hidden">{t("settings.auditLog")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("audit.when")}</th>
                <th scope="col">{t("audit.who")}</th>
                <th scope="col">{t("audit.what")}</th>
                <th scope="col">{t("audit.changes")}</th>
                <th scope="col">{t("audit.from")}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <time dateTime={entry.createdAt}>{dateTime.format(new Date(entry.createdAt))}</time>
                  </td>
                  <td>{actorName(entry.actor)}</td>
                  <td>
                    {actionLabel(entry.action)}
                    <Subject entry={entry} />
                  </td>
                  <td>
                    <Changes entry={entry} />
                  </td>
                  <td>{entry.clientAddress ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {next !== null && (
            <button type="button" class="button" onClick={() => void more()}>
              {t("audit.more")}
            </button>
          )}
        </>
      )}
    </SettingsLayout>
  );
}
