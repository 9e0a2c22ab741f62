// The company's games: each with its languages, whether it refuses unverified players and its
// environments; a new game (name, slug, languages, blockUnverifiedPlayers) opens its own page,
// where it is changed (game.tsx).
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type GameSettings } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { Link } from "../../components/layout.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { t } from "../../i18n.ts";
import { navigate } from "../../router.ts";

/** "en, de" (commas or spaces) as the API's list of codes. */
export function languagesOf(text: string): string[] {
  return text.split(/[\s,]+/).filter((code) => code !== "");
}

export interface GameFormErrors {
  name?: string | undefined;
  slug?: string | undefined;
  languages?: string | undefined;
}

/** The field errors of a refused game (400): each path's field says what is wrong. */
export function gameFormErrors(error: ApiError): GameFormErrors {
  const paths = error.paths;
  return {
    name: paths.includes("/name") ? t("games.nameMissing") : undefined,
    slug: paths.includes("/slug") ? t("games.slugInvalid") : undefined,
    languages: paths.some((path) => path === "/languages" || path.startsWith("/languages/")) ? t("games.languagesInvalid") : undefined,
  };
}

export function Checkbox({ id, label, hint, checked, onChange }: { id: string; label: string; hint: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <div class="field checkbox-field">
      <div class="checkbox-row">
        <input id={id} type="checkbox" checked={checked} aria-describedby={`${id}-hint`} onChange={(event) => onChange((event.currentTarget as HTMLInputElement).checked)} />
        <label for={id}>{label}</label>
      </div>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}

export function GamesPage() {
  const [games, setGames] = useState<GameSettings[]>();
  const [error, setError] = useState<string>();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [languages, setLanguages] = useState("");
  const [block, setBlock] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<GameFormErrors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    call<{ games: GameSettings[] }>("GET", "/settings/games").then(
      ({ body }) => setGames(body.games),
      () => setError(t("app.error")),
    );
  }, []);

  async function create(event: Event) {
    event.preventDefault();
    setError(undefined);
    const errors: GameFormErrors = {};
    if (name.trim() === "") errors.name = t("games.nameMissing");
    if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(slug)) errors.slug = t("games.slugInvalid");
    if (languagesOf(languages).length === 0) errors.languages = t("games.languagesInvalid");
    setFieldErrors(errors);
    if (errors.name || errors.slug || errors.languages) return;
    setBusy(true);
    try {
      const { body } = await call<GameSettings>("POST", "/settings/games", { name: name.trim(), slug, languages: languagesOf(languages), blockUnverifiedPlayers: block });
      navigate(`/settings/games/${body.id}`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setFieldErrors(gameFormErrors(caught));
      else if (caught instanceof ApiError && caught.status === 409) setFieldErrors({ slug: t("games.slugTaken") });
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsLayout title={t("settings.games")}>
      <p class="hint">{t("games.intro")}</p>
      {error && <Alert>{error}</Alert>}
      <h2 id="games-title">{t("games.listTitle")}</h2>
      {games === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : games.length === 0 ? (
        <p>{t("games.none")}</p>
      ) : (
        <table class="settings-table" aria-labelledby="games-title">
          <thead>
            <tr>
              <th scope="col">{t("games.name")}</th>
              <th scope="col">{t("games.slug")}</th>
              <th scope="col">{t("games.languages")}</th>
              <th scope="col">{t("games.environments")}</th>
              <th scope="col">{t("games.players")}</th>
            </tr>
          </thead>
          <tbody>
            {games.map((game) => (
              <tr key={game.id}>
                <th scope="row">
                  <Link to={`/settings/games/${game.id}`}>{game.name}</Link>
                </th>
                <td>
                  <code>{game.slug}</code>
                </td>
                <td>{game.languages.join(", ")}</td>
                <td>{game.environments.length === 0 ? t("games.noEnvironments") : game.environments.map((environment) => environment.name).join(", ")}</td>
                <td>{game.blockUnverifiedPlayers ? t("games.verifiedOnly") : t("games.everyone")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline-form section-form" onSubmit={create} noValidate aria-labelledby="new-game-title">
        <h2 id="new-game-title">{t("games.newTitle")}</h2>
        <Field id="game-name" label={t("games.name")} value={name} onInput={setName} error={fieldErrors.name} />
        <Field id="game-slug" label={t("games.slug")} hint={t("games.slugHint")} value={slug} onInput={setSlug} error={fieldErrors.slug} />
        <Field id="game-languages" label={t("games.languages")} hint={t("games.languagesHint")} value={languages} onInput={setLanguages} error={fieldErrors.languages} />
        <Checkbox id="game-block" label={t("games.block")} hint={t("games.blockHint")} checked={block} onChange={setBlock} />
        <button type="submit" class="button primary" disabled={busy}>
          {t("games.create")}
        </button>
      </form>
    </SettingsLayout>
  );
}
