// The company's announcements, per scope: shared (all games), a game (overrides the shared one
// on its page) or an environment (overrides its game's). A short text and optional details per
// language, a tab per language; the company's primary language is required, as the API
// enforces (its tab says so, and saving without it is refused here first). Clear removes one:
// the one above it shows again.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type GameSettings } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { LanguageTabs, languageName } from "../../components/language-tabs.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { t } from "../../i18n.ts";

type Localized = Record<string, string | null>;

interface SettingsAnnouncement {
  scope: "shared" | "game" | "environment";
  gameId: string | null;
  environmentId: string | null;
  shortContent: Localized;
  longContent: Localized;
}

interface Scope {
  value: string;
  label: string;
  gameId: string | null;
  environmentId: string | null;
  languages: string[];
}

function scopesOf(games: GameSettings[], primary: string): Scope[] {
  const all = [...new Set([primary, ...games.flatMap((game) => game.languages)])];
  const withPrimary = (languages: string[]) => [primary, ...languages.filter((code) => code !== primary)];
  return [
    { value: "shared", label: t("announcements.shared"), gameId: null, environmentId: null, languages: all },
    ...games.flatMap((game) => [
      { value: game.id, label: t("announcements.gameScope", { game: game.name }), gameId: game.id, environmentId: null, languages: withPrimary(game.languages) },
      ...game.environments.map((environment) => ({
        value: `${game.id}/${environment.id}`,
        label: t("announcements.environmentScope", { game: game.name, environment: environment.name }),
        gameId: game.id,
        environmentId: environment.id,
        languages: withPrimary(game.languages),
      })),
    ]),
  ];
}

const clean = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ""));

export function AnnouncementsPage() {
  const [games, setGames] = useState<GameSettings[]>();
  const [primary, setPrimary] = useState<string>();
  const [announcements, setAnnouncements] = useState<SettingsAnnouncement[]>([]);
  const [scopeValue, setScopeValue] = useState("shared");
  const [short, setShort] = useState<Record<string, string>>({});
  const [long, setLong] = useState<Record<string, string>>({});
  const [selected, setSelected] = useState<string>();
  const [error, setError] = useState<string>();
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [saving, setSaving] = useState(false);

  const load = () =>
    Promise.all([
      call<{ games: GameSettings[] }>("GET", "/settings/games"),
      call<{ primaryLanguage: string; announcements: SettingsAnnouncement[] }>("GET", "/settings/announcements"),
    ]).then(
      ([gamesResponse, announcementsResponse]) => {
        setGames(gamesResponse.body.games);
        setPrimary(announcementsResponse.body.primaryLanguage);
        setAnnouncements(announcementsResponse.body.announcements);
        return announcementsResponse.body.announcements;
      },
      () => {
        setMessage({ kind: "error", text: t("app.error") });
        return undefined;
      },
    );
  useEffect(() => {
    void load();
  }, []);

  const scopes = games && primary ? scopesOf(games, primary) : [];
  const scope = scopes.find((item) => item.value === scopeValue) ?? scopes[0];
  const current = scope && announcements.find((a) => a.gameId === scope.gameId && a.environmentId === scope.environmentId);

  // The texts of the chosen scope's announcement (empty when it has none).
  useEffect(() => {
    const text = (map: Localized | undefined) => Object.fromEntries(Object.entries(map ?? {}).map(([code, value]) => [code, value ?? ""]));
    setShort(text(current?.shortContent));
    setLong(text(current?.longContent));
    setError(undefined);
    setSelected(primary);
  }, [scopeValue, primary, current?.shortContent, current?.longContent]);

  async function save(event: Event) {
    event.preventDefault();
    if (!scope || !primary) return;
    setMessage(undefined);
    if (!short[primary]?.trim()) {
      setSelected(primary);
      setError(t("announcements.primaryRequired", { language: languageName(primary) }));
      setTimeout(() => document.getElementById("announcement-short")?.focus());
      return;
    }
    setError(undefined);
    setSaving(true);
    try {
      await call("PUT", "/settings/announcements", { gameId: scope.gameId, environmentId: scope.environmentId, shortContent: clean(short), longContent: clean(long) });
      await load();
      setMessage({ kind: "success", text: t("announcements.saved", { scope: scope.label }) });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setError(t("announcements.primaryRequired", { language: languageName(primary) }));
      else setMessage({ kind: "error", text: t("app.error") });
    } finally {
      setSaving(false);
    }
  }

  async function clear() {
    if (!scope) return;
    setMessage(undefined);
    const query = new URLSearchParams();
    if (scope.gameId) query.set("gameId", scope.gameId);
    if (scope.environmentId) query.set("environmentId", scope.environmentId);
    try {
      await call("DELETE", `/settings/announcements${query.size ? `?${query}` : ""}`);
      await load();
      setMessage({ kind: "success", text: t("announcements.cleared", { scope: scope.label }) });
      document.getElementById("announcement-scope")?.focus();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  const language = selected ?? primary ?? "en";
  return (
    <SettingsLayout title={t("settings.announcements")}>
      <p class="hint page-intro">{t("announcements.intro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      {!scope || !primary ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        <form class="inline-form announcement-form" onSubmit={(event) => void save(event)} noValidate aria-labelledby="announcement-title">
          <div class="field">
            <label for="announcement-scope">{t("announcements.scope")}</label>
            <p class="hint" id="announcement-scope-hint">
              {t("announcements.scopeHint")}
            </p>
            <select id="announcement-scope" aria-describedby="announcement-scope-hint" value={scope.value} onChange={(event) => setScopeValue((event.currentTarget as HTMLSelectElement).value)}>
              {scopes.map((item) => (
                <option key={item.value} value={item.value}>
                  {item.label}
                  {announcements.some((a) => a.gameId === item.gameId && a.environmentId === item.environmentId) ? ` ${t("announcements.setMark")}` : ""}
                </option>
              ))}
            </select>
          </div>
          <h2 id="announcement-title">{current ? t("announcements.editTitle", { scope: scope.label }) : t("announcements.newTitle", { scope: scope.label })}</h2>
          <p class="hint" id="announcement-rule">
            {t("announcements.rule", { language: languageName(primary) })}
          </p>
          <LanguageTabs id="announcement-lang" label={t("announcements.languages")} languages={scope.languages} selected={language} required={primary} invalid={error ? new Set([primary]) : new Set()} onSelect={setSelected}>
            <Field
              id="announcement-short"
              label={t(language === primary ? "announcements.shortRequired" : "announcements.short", { language: languageName(language) })}
              value={short[language] ?? ""}
              onInput={(value) => setShort((map) => ({ ...map, [language]: value }))}
              error={language === primary ? error : undefined}
              required={language === primary}
            />
            <div class="field">
              <label for="announcement-long">{t("announcements.long", { language: languageName(language) })}</label>
              <textarea id="announcement-long" rows={5} value={long[language] ?? ""} onInput={(event) => setLong((map) => ({ ...map, [language]: (event.currentTarget as HTMLTextAreaElement).value }))} />
            </div>
          </LanguageTabs>
          <div class="form-buttons">
            <button type="submit" class="button primary" disabled={saving}>
              {t("announcements.save")}
            </button>
            {current && (
              <button type="button" class="button" onClick={() => void clear()}>
                {t("announcements.clear")}
              </button>
            )}
          </div>
        </form>
      )}
    </SettingsLayout>
  );
}
