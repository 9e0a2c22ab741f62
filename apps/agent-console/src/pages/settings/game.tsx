// One game of the company: rename it and change its languages and blockUnverifiedPlayers; add
// environments, open the web support page with an environment's token and rotate the token
// (the previous one keeps working for the overlap chosen); paste the public keys (JWKS) that
// verify its signed player metadata, and test a token against them (the players service's own
// verification answers, with the reason when it does not verify).
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type GameEnvironmentInfo, type GameSettings, type MetadataTokenCheck } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { Link } from "../../components/layout.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";
import { en, type MessageKey } from "../../messages/en.ts";
import { GameBrandingSection } from "./game-branding.tsx";
import { Checkbox, gameFormErrors, languagesOf, type GameFormErrors } from "./games.tsx";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

/** How long the previous token keeps working, as offered (seconds). */
const OVERLAPS = [
  { seconds: 0, label: "games.overlapNone" },
  { seconds: 3600, label: "games.overlapHour" },
  { seconds: 86_400, label: "games.overlapDay" },
  { seconds: 604_800, label: "games.overlapWeek" },
] as const satisfies readonly { seconds: number; label: MessageKey }[];

/** A refusal's reason in words; one this console has no words for as the service's message. */
function reasonLabel(check: MetadataTokenCheck): string {
  const key = `games.reason.${check.reason}`;
  return key in en ? t(key as MessageKey) : (check.message ?? "");
}

function GameForm({ game, onSaved }: { game: GameSettings; onSaved: (game: GameSettings) => void }) {
  const [name, setName] = useState(game.name);
  const [languages, setLanguages] = useState(game.languages.join(", "));
  const [block, setBlock] = useState(game.blockUnverifiedPlayers);
  const [routing, setRouting] = useState(game.routingEnabled);
  const [fieldErrors, setFieldErrors] = useState<GameFormErrors>({});
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    setError(undefined);
    const errors: GameFormErrors = {};
    if (name.trim() === "") errors.name = t("games.nameMissing");
    if (languagesOf(languages).length === 0) errors.languages = t("games.languagesInvalid");
    setFieldErrors(errors);
    if (errors.name || errors.languages) return;
    setBusy(true);
    try {
      const { body } = await call<GameSettings>("PATCH", `/settings/games/${game.id}`, { name: name.trim(), languages: languagesOf(languages), blockUnverifiedPlayers: block, routingEnabled: routing });
      onSaved(body);
      const removed = game.languages.filter((code) => !body.languages.includes(code));
      setNotice(removed.length > 0 ? t("games.savedRemoved", { languages: removed.join(", ") }) : t("games.saved"));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setFieldErrors(gameFormErrors(caught));
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="inline-form section-form" onSubmit={save} noValidate aria-labelledby="game-form-title">
      <h2 id="game-form-title">{t("games.gameTitle")}</h2>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <p class="hint">{t("games.slugFixed", { slug: game.slug })}</p>
      <Field id="game-name" label={t("games.name")} value={name} onInput={setName} error={fieldErrors.name} />
      <Field id="game-languages" label={t("games.languages")} hint={t("games.languagesEditHint")} value={languages} onInput={setLanguages} error={fieldErrors.languages} />
      <Checkbox id="game-block" label={t("games.block")} hint={t("games.blockHint")} checked={block} onChange={setBlock} />
      <Checkbox id="game-routing" label={t("games.routing")} hint={t("games.routingHint")} checked={routing} onChange={setRouting} />
      <button type="submit" class="button primary" disabled={busy}>
        {t("games.save")}
      </button>
    </form>
  );
}

function PreviousToken({ environment }: { environment: GameEnvironmentInfo }) {
  if (environment.previousToken === null || environment.previousTokenExpiresAt === null) return <span class="muted">—</span>;
  const until = new Date(environment.previousTokenExpiresAt);
  const works = until.getTime() > Date.now();
  return (
    <>
      <code class="token">{environment.previousToken}</code>
      <span class={works ? "token-state" : "token-state muted"}>
        {works ? t("games.previousWorksUntil", { date: dateTime.format(until) }) : t("games.previousStopped", { date: dateTime.format(until) })}
      </span>
    </>
  );
}

function Environments({ game, onChanged }: { game: GameSettings; onChanged: () => Promise<void> }) {
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string>();
  const [rotating, setRotating] = useState<string>();
  const [overlap, setOverlap] = useState(86_400);
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function add(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    setError(undefined);
    if (name.trim() === "") return setNameError(t("games.environmentNameMissing"));
    setNameError(undefined);
    setBusy(true);
    try {
      await call("POST", `/settings/games/${game.id}/environments`, { name: name.trim() });
      await onChanged();
      setNotice(t("games.environmentAdded", { name: name.trim() }));
      setName("");
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) setNameError(t("games.environmentNameTaken"));
      else if (caught instanceof ApiError && caught.status === 400) setNameError(t("games.environmentNameMissing"));
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  async function rotate(environment: GameEnvironmentInfo) {
    setNotice(undefined);
    setError(undefined);
    setBusy(true);
    try {
      await call("POST", `/settings/games/${game.id}/environments/${environment.id}/token-rotation`, { overlapSeconds: overlap });
      await onChanged();
      setRotating(undefined);
      setNotice(overlap === 0 ? t("games.rotatedNow", { name: environment.name }) : t("games.rotated", { name: environment.name }));
    } catch {
      setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="environments-title">
      <h2 id="environments-title">{t("games.environmentsTitle")}</h2>
      <p class="hint">{t("games.environmentsIntro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {game.environments.length === 0 ? (
        <p>{t("games.noEnvironmentsYet")}</p>
      ) : (
        <table class="settings-table environments-table" aria-labelledby="environments-title">
          <thead>
            <tr>
              <th scope="col">{t("games.environment")}</th>
              <th scope="col">{t("games.token")}</th>
              <th scope="col">{t("games.previousToken")}</th>
              <th scope="col">{t("games.actions")}</th>
            </tr>
          </thead>
          <tbody>
            {game.environments.map((environment) => (
              <tr key={environment.id}>
                <th scope="row">{environment.name}</th>
                <td>
                  <code class="token">{environment.token}</code>
                </td>
                <td>
                  <PreviousToken environment={environment} />
                </td>
                <td>
                  <div class="row-actions">
                    <a
                      class="button small"
                      href={`/support/sessions/redirect?token=${encodeURIComponent(environment.token)}`}
                      target="_blank"
                      rel="noopener noreferrer"
                      aria-label={t("games.openSupportLabel", { name: environment.name })}
                    >
                      {t("games.openSupport")}
                    </a>
                    {rotating === environment.id ? (
                      <div class="rotate-form" role="group" aria-label={t("games.rotateLabel", { name: environment.name })}>
                        <label for={`overlap-${environment.id}`}>{t("games.overlap")}</label>
                        <select id={`overlap-${environment.id}`} value={String(overlap)} onChange={(event) => setOverlap(Number((event.currentTarget as HTMLSelectElement).value))}>
                          {OVERLAPS.map((option) => (
                            <option key={option.seconds} value={String(option.seconds)}>
                              {t(option.label)}
                            </option>
                          ))}
                        </select>
                        <span class="confirm">
                          <button type="button" class="button small danger" disabled={busy} onClick={() => void rotate(environment)} aria-label={t("games.rotateConfirmLabel", { name: environment.name })}>
                            {t("games.rotateConfirm")}
                          </button>
                          <button type="button" class="button small" onClick={() => setRotating(undefined)}>
                            {t("apiKeys.cancel")}
                          </button>
                        </span>
                      </div>
                    ) : (
                      <button
                        type="button"
                        class="button small"
                        onClick={() => {
                          setOverlap(86_400);
                          setRotating(environment.id);
                        }}
                        aria-label={t("games.rotateLabel", { name: environment.name })}
                      >
                        {t("games.rotate")}
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="inline-form section-form" onSubmit={add} noValidate aria-labelledby="new-environment-title">
        <h3 id="new-environment-title">{t("games.newEnvironmentTitle")}</h3>
        <Field id="environment-name" label={t("games.environmentName")} hint={t("games.environmentNameHint")} value={name} onInput={setName} error={nameError} />
        <button type="submit" class="button primary" disabled={busy}>
          {t("games.addEnvironment")}
        </button>
      </form>
    </section>
  );
}

function MetadataKeys({ game, onSaved }: { game: GameSettings; onSaved: (game: GameSettings) => void }) {
  const [text, setText] = useState(game.metadataJwks === null ? "" : JSON.stringify(game.metadataJwks, null, 2));
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const kids = (game.metadataJwks?.keys ?? []).map((key) => (typeof key["kid"] === "string" ? key["kid"] : "?"));

  async function save(jwks: unknown) {
    setNotice(undefined);
    setProblem(undefined);
    setBusy(true);
    try {
      const { body } = await call<GameSettings>("PUT", `/settings/games/${game.id}/metadata-keys`, { metadataJwks: jwks });
      onSaved(body);
      if (jwks === null) setText("");
      setNotice(jwks === null ? t("games.keysRemoved") : t("games.keysSaved"));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const issue = caught.details?.issues?.[0];
        setProblem(t("games.keysInvalid", { detail: issue ? `${issue.path}: ${issue.message}` : caught.message }));
      } else setProblem(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  function submit(event: Event) {
    event.preventDefault();
    if (text.trim() === "") return void save(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return setProblem(t("games.keysNotJson"));
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return setProblem(t("games.keysNotJson"));
    void save(parsed);
  }

  return (
    <form class="section-form wide-form" onSubmit={submit} noValidate aria-labelledby="keys-title">
      <h2 id="keys-title">{t("games.keysTitle")}</h2>
      <p class="hint">{t("games.keysIntro")}</p>
      {notice && <Alert kind="success">{notice}</Alert>}
      <p>{kids.length === 0 ? t("games.keysNone") : t("games.keysCurrent", { kids: kids.join(", ") })}</p>
      <div class="field">
        <label for="metadata-jwks">{t("games.keysLabel")}</label>
        <p class="hint" id="metadata-jwks-hint">
          {t("games.keysHint")}
        </p>
        <textarea
          id="metadata-jwks"
          class="code-area"
          rows={8}
          spellcheck={false}
          value={text}
          aria-invalid={problem ? "true" : undefined}
          aria-describedby={problem ? "metadata-jwks-hint metadata-jwks-error" : "metadata-jwks-hint"}
          onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
        />
        {problem && (
          <p class="field-error" id="metadata-jwks-error">
            {problem}
          </p>
        )}
      </div>
      <div class="form-buttons">
        <button type="submit" class="button primary" disabled={busy}>
          {t("games.keysSave")}
        </button>
        {game.metadataJwks !== null && (
          <button type="button" class="button" disabled={busy} onClick={() => void save(null)}>
            {t("games.keysRemove")}
          </button>
        )}
      </div>
    </form>
  );
}

function TokenTest({ game }: { game: GameSettings }) {
  const [token, setToken] = useState("");
  const [missing, setMissing] = useState(false);
  const [result, setResult] = useState<MetadataTokenCheck>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function test(event: Event) {
    event.preventDefault();
    setResult(undefined);
    setError(undefined);
    setMissing(token.trim() === "");
    if (token.trim() === "") return;
    setBusy(true);
    try {
      const { body } = await call<MetadataTokenCheck>("POST", `/settings/games/${game.id}/metadata-token-checks`, { signedMetadataToken: token.trim() });
      setResult(body);
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 400 ? t("games.testTooLong") : t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  const player = result?.metadata?.["player"] as { id?: string; name?: string; email?: string } | undefined;
  return (
    <form class="section-form wide-form" onSubmit={test} noValidate aria-labelledby="test-title">
      <h2 id="test-title">{t("games.testTitle")}</h2>
      <p class="hint">{t("games.testIntro")}</p>
      <div class="field">
        <label for="metadata-token">{t("games.testLabel")}</label>
        <textarea
          id="metadata-token"
          class="code-area"
          rows={4}
          spellcheck={false}
          value={token}
          aria-invalid={missing ? "true" : undefined}
          aria-describedby={missing ? "metadata-token-error" : undefined}
          onInput={(event) => setToken((event.currentTarget as HTMLTextAreaElement).value)}
        />
        {missing && (
          <p class="field-error" id="metadata-token-error">
            {t("games.testMissing")}
          </p>
        )}
      </div>
      <button type="submit" class="button primary" disabled={busy}>
        {t("games.test")}
      </button>
      {error && <Alert>{error}</Alert>}
      <div role="status" class="test-result-region">
        {result &&
          (result.verified ? (
            <div class="test-result verified">
              <p class="test-verdict">{t("games.testVerified", { kid: result.kid ?? "" })}</p>
              {result.expiresAt && <p>{t("games.testExpires", { date: dateTime.format(new Date(result.expiresAt)) })}</p>}
              {player && <p>{t("games.testPlayer", { player: [player.id, player.name, player.email].filter(Boolean).join(" · ") })}</p>}
            </div>
          ) : (
            <div class="test-result refused">
              <p class="test-verdict">{t("games.testRefused", { reason: reasonLabel(result) })}</p>
              <p class="muted">{t("games.testDetail", { message: result.message ?? "" })}</p>
            </div>
          ))}
      </div>
    </form>
  );
}

export function GamePage({ gameId }: { gameId: string }) {
  const [game, setGame] = useState<GameSettings>();
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string>();

  const load = () =>
    call<GameSettings>("GET", `/settings/games/${gameId}`).then(
      ({ body }) => setGame(body),
      (caught) => (caught instanceof ApiError && caught.status === 404 ? setMissing(true) : setError(t("app.error"))),
    );
  useEffect(() => void load(), [gameId]);

  return (
    <SettingsLayout title={game ? t("games.pageTitle", { name: game.name }) : t("settings.games")}>
      <p>
        <Link to="/settings/games">{t("games.back")}</Link>
      </p>
      {error && <Alert>{error}</Alert>}
      {missing ? (
        <p>{t("games.notFound")}</p>
      ) : game === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        <>
          <GameForm key={game.id} game={game} onSaved={setGame} />
          <Environments game={game} onChanged={load} />
          <GameBrandingSection game={game} />
          <MetadataKeys game={game} onSaved={setGame} />
          <TokenTest game={game} />
        </>
      )}
    </SettingsLayout>
  );
}
