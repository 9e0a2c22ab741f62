// A game's players as the settings manage them: block a player by the game's player id or email
// (one not seen yet is blocked before its first contact), the blocked players newest first with
// Unblock, the game's scheduled deletions (who scheduled, when due) with Cancel (a second click
// confirms), and "Delete now", which erases a player's data at once where the company allows it
// (an operator's setting; otherwise the page says so and the API answers 403). Each change is in
// the audit log.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type GameSettings } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

interface SettingsPlayer {
  servicePlayerId: string;
  gameId: string;
  playerId: string | null;
  email: string | null;
  name: string | null;
  blocked: boolean;
  blockedAt: string | null;
}

interface ScheduledDeletion {
  scheduleId: string;
  player: SettingsPlayer;
  requestedBy: { type: "api_key" | "operator" | "user"; id: string | null };
  scheduledAt: string;
  dueAt: string;
}

interface Page<T> {
  items: T[];
  cursor: string | null;
}

type Message = { kind: "success" | "error"; text: string };

/** The player as the page names it: the game's player id, else the email, with the name when known. */
function playerLabel(player: SettingsPlayer): string {
  const key = player.playerId ?? player.email ?? player.servicePlayerId;
  return player.name ? `${key} (${player.name})` : key;
}

const REQUESTER_TYPES = ["api_key", "operator", "user"] as const;

/** Whether `value` names who can ask for a deletion (the audit log's `requestedBy` holds the type alone). */
export function isRequesterType(value: unknown): value is ScheduledDeletion["requestedBy"]["type"] {
  return (REQUESTER_TYPES as readonly unknown[]).includes(value);
}

/** Who asked for a deletion, in words. */
export function requesterLabel(requestedBy: ScheduledDeletion["requestedBy"]): string {
  if (requestedBy.type === "operator") return t("settings.operator");
  if (requestedBy.type === "user") return t("players.byUser");
  return requestedBy.id ? t("players.byApiKeyId", { id: requestedBy.id.slice(0, 8) }) : t("players.byApiKey");
}

/** The player a form names: exactly one of the game's player id and an email. */
function keyOf(playerId: string, email: string): { playerId: string } | { email: string } | undefined {
  const id = playerId.trim();
  const mail = email.trim();
  if ((id === "") === (mail === "")) return undefined;
  return id !== "" ? { playerId: id } : { email: mail };
}

/** The two fields that name a player, with the error of the pair under them. */
function PlayerKeyFields(props: { prefix: string; playerId: string; email: string; onPlayerId: (value: string) => void; onEmail: (value: string) => void; error?: string | undefined }) {
  return (
    <>
      <Field id={`${props.prefix}-player-id`} label={t("players.playerId")} hint={t("players.keyHint")} value={props.playerId} onInput={props.onPlayerId} required={false} error={props.error} />
      <Field id={`${props.prefix}-email`} label={t("players.email")} type="email" inputMode="email" value={props.email} onInput={props.onEmail} required={false} />
    </>
  );
}

function BlockForm({ game, onDone }: { game: GameSettings; onDone: (message: Message) => void }) {
  const [playerId, setPlayerId] = useState("");
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function block(event: Event) {
    event.preventDefault();
    const key = keyOf(playerId, email);
    if (!key) {
      setError(t("players.keyMissing"));
      document.getElementById("block-player-id")?.focus();
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      const { body } = await call<SettingsPlayer>("POST", `/settings/games/${game.id}/blocked-players`, key);
      setPlayerId("");
      setEmail("");
      onDone({ kind: "success", text: t("players.blocked", { player: playerLabel(body) }) });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setError(t("players.keyInvalid"));
      else onDone({ kind: "error", text: t("app.error") });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="players-section" aria-labelledby="block-title">
      <form class="inline-form players-form" onSubmit={(event) => void block(event)} noValidate aria-labelledby="block-title">
        <h2 id="block-title">{t("players.blockTitle", { game: game.name })}</h2>
        <p class="hint page-intro">{t("players.blockIntro")}</p>
        <PlayerKeyFields prefix="block" playerId={playerId} email={email} onPlayerId={setPlayerId} onEmail={setEmail} error={error} />
        <button type="submit" class="button primary" disabled={busy}>
          {t("players.block")}
        </button>
      </form>
    </section>
  );
}

function DeleteNow({ game, allowed, onDone }: { game: GameSettings; allowed: boolean | undefined; onDone: (message: Message) => void }) {
  const [playerId, setPlayerId] = useState("");
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [busy, setBusy] = useState(false);

  function ask(event: Event) {
    event.preventDefault();
    const key = keyOf(playerId, email);
    if (!key) {
      setError(t("players.keyMissing"));
      document.getElementById("erase-player-id")?.focus();
      return;
    }
    setError(undefined);
    setConfirming("playerId" in key ? key.playerId : key.email);
  }
  useEffect(() => {
    if (confirming) document.getElementById("erase-confirm")?.focus();
  }, [confirming]);

  async function erase() {
    const key = keyOf(playerId, email);
    if (!key || !confirming) return;
    setBusy(true);
    try {
      await call("POST", `/settings/games/${game.id}/player-erasures`, key);
      setPlayerId("");
      setEmail("");
      setConfirming(undefined);
      onDone({ kind: "success", text: t("players.erased", { player: confirming }) });
    } catch (caught) {
      setConfirming(undefined);
      if (caught instanceof ApiError && caught.status === 404) setError(t("players.unknownPlayer"));
      else if (caught instanceof ApiError && caught.status === 400) setError(t("players.keyInvalid"));
      else if (caught instanceof ApiError && caught.status === 403) onDone({ kind: "error", text: t("players.eraseNotAllowed") });
      else onDone({ kind: "error", text: t("app.error") });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="players-section" aria-labelledby="erase-title">
      <h2 id="erase-title">{t("players.eraseTitle")}</h2>
      {allowed === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : !allowed ? (
        <p class="players-notice" id="erase-not-allowed">
          {t("players.eraseNotAllowed")}
        </p>
      ) : (
        <form class="inline-form players-form" onSubmit={ask} noValidate aria-labelledby="erase-title">
          <p class="hint page-intro">{t("players.eraseIntro", { game: game.name })}</p>
          <PlayerKeyFields
            prefix="erase"
            playerId={playerId}
            email={email}
            onPlayerId={(value) => { setPlayerId(value); setConfirming(undefined); }}
            onEmail={(value) => { setEmail(value); setConfirming(undefined); }}
            error={error}
          />
          {confirming ? (
            <span class="confirm">
              <button id="erase-confirm" type="button" class="button danger" disabled={busy} onClick={() => void erase()}>
                {t("players.eraseConfirm", { player: confirming })}
              </button>
              <button type="button" class="button" onClick={() => setConfirming(undefined)}>
                {t("players.keep")}
              </button>
            </span>
          ) : (
            <button type="submit" class="button danger">
              {t("players.erase")}
            </button>
          )}
        </form>
      )}
    </section>
  );
}

export function PlayersPage() {
  const [gamesList, setGames] = useState<GameSettings[]>();
  const [gameId, setGameId] = useState<string>();
  const [blocked, setBlocked] = useState<Page<SettingsPlayer>>();
  const [deletions, setDeletions] = useState<Page<ScheduledDeletion>>();
  const [allowed, setAllowed] = useState<boolean>();
  const [message, setMessage] = useState<Message>();
  const [confirming, setConfirming] = useState<string>();

  useEffect(() => {
    call<{ games: GameSettings[] }>("GET", "/settings/games").then(
      ({ body }) => {
        setGames(body.games);
        setGameId((current) => current ?? body.games[0]?.id);
      },
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
    call<{ allowed: boolean }>("GET", "/settings/players/immediate-deletion").then(
      ({ body }) => setAllowed(body.allowed),
      () => setAllowed(false),
    );
  }, []);

  const loadBlocked = (id: string, cursor?: string) =>
    call<{ players: SettingsPlayer[]; pagination: { cursor: string | null } }>("GET", `/settings/games/${id}/blocked-players${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`).then(
      ({ body }) => setBlocked((current) => ({ items: [...(cursor ? (current?.items ?? []) : []), ...body.players], cursor: body.pagination.cursor })),
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
  const loadDeletions = (id: string, cursor?: string) =>
    call<{ deletions: ScheduledDeletion[]; pagination: { cursor: string | null } }>("GET", `/settings/scheduled-deletions?gameId=${id}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`).then(
      ({ body }) => setDeletions((current) => ({ items: [...(cursor ? (current?.items ?? []) : []), ...body.deletions], cursor: body.pagination.cursor })),
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
  const reload = (id: string) => Promise.all([loadBlocked(id), loadDeletions(id)]);
  useEffect(() => {
    setBlocked(undefined);
    setDeletions(undefined);
    setConfirming(undefined);
    if (gameId) void reload(gameId);
  }, [gameId]);

  const game = gamesList?.find((item) => item.id === gameId);

  function done(next: Message) {
    setMessage(next);
    if (gameId && next.kind === "success") void reload(gameId);
  }

  async function unblock(player: SettingsPlayer) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/games/${player.gameId}/blocked-players/${player.servicePlayerId}`);
      setMessage({ kind: "success", text: t("players.unblocked", { player: playerLabel(player) }) });
      if (gameId) await loadBlocked(gameId);
      document.getElementById("blocked-title")?.focus();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  async function cancel(deletion: ScheduledDeletion) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/scheduled-deletions/${deletion.player.servicePlayerId}`);
      setConfirming(undefined);
      setMessage({ kind: "success", text: t("players.cancelled", { player: playerLabel(deletion.player) }) });
      if (gameId) await loadDeletions(gameId);
      document.getElementById("deletions-title")?.focus();
    } catch (caught) {
      setConfirming(undefined);
      setMessage({ kind: "error", text: caught instanceof ApiError && caught.status === 404 ? t("players.cancelGone") : t("app.error") });
      if (gameId) await loadDeletions(gameId);
    }
  }

  useEffect(() => {
    if (confirming) document.getElementById(`cancel-confirm-${confirming}`)?.focus();
  }, [confirming]);

  return (
    <SettingsLayout title={t("settings.players")}>
      <p class="hint page-intro">{t("players.intro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      {gamesList === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : gamesList.length === 0 || !game ? (
        <p class="muted">{t("players.noGames")}</p>
      ) : (
        <>
          <div class="field articles-game players-game">
            <label for="players-game">{t("players.game")}</label>
            <select id="players-game" value={gameId} onChange={(event) => setGameId((event.currentTarget as HTMLSelectElement).value)}>
              {gamesList.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.name}
                </option>
              ))}
            </select>
          </div>
          <BlockForm key={`block-${game.id}`} game={game} onDone={done} />

          <section class="players-section" aria-labelledby="blocked-title">
            <h2 id="blocked-title" tabIndex={-1}>
              {t("players.blockedTitle", { game: game.name })}
            </h2>
            {blocked === undefined ? (
              <p role="status">{t("app.loading")}</p>
            ) : blocked.items.length === 0 ? (
              <p class="muted">{t("players.noneBlocked")}</p>
            ) : (
              <table class="settings-table players-table" aria-labelledby="blocked-title">
                <thead>
                  <tr>
                    <th scope="col">{t("players.player")}</th>
                    <th scope="col">{t("players.blockedSince")}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t("players.actions")}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {blocked.items.map((player) => (
                    <tr key={player.servicePlayerId}>
                      <th scope="row">{playerLabel(player)}</th>
                      <td>{player.blockedAt ? dateTime.format(new Date(player.blockedAt)) : "—"}</td>
                      <td>
                        <button type="button" class="button small" onClick={() => void unblock(player)} aria-label={t("players.unblockLabel", { player: playerLabel(player) })}>
                          {t("players.unblock")}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {blocked?.cursor && (
              <p>
                <button type="button" class="button" onClick={() => gameId && void loadBlocked(gameId, blocked.cursor ?? undefined)}>
                  {t("players.more")}
                </button>
              </p>
            )}
          </section>

          <section class="players-section" aria-labelledby="deletions-title">
            <h2 id="deletions-title" tabIndex={-1}>
              {t("players.deletionsTitle", { game: game.name })}
            </h2>
            <p class="hint page-intro">{t("players.deletionsIntro")}</p>
            {deletions === undefined ? (
              <p role="status">{t("app.loading")}</p>
            ) : deletions.items.length === 0 ? (
              <p class="muted">{t("players.noneScheduled")}</p>
            ) : (
              <table class="settings-table players-table" aria-labelledby="deletions-title">
                <thead>
                  <tr>
                    <th scope="col">{t("players.player")}</th>
                    <th scope="col">{t("players.scheduledBy")}</th>
                    <th scope="col">{t("players.due")}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t("players.actions")}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {deletions.items.map((deletion) => (
                    <tr key={deletion.scheduleId}>
                      <th scope="row">{playerLabel(deletion.player)}</th>
                      <td>{t("players.scheduledByAt", { who: requesterLabel(deletion.requestedBy), date: dateTime.format(new Date(deletion.scheduledAt)) })}</td>
                      <td>{dateTime.format(new Date(deletion.dueAt))}</td>
                      <td>
                        {confirming === deletion.scheduleId ? (
                          <span class="confirm">
                            <button
                              id={`cancel-confirm-${deletion.scheduleId}`}
                              type="button"
                              class="button small danger"
                              onClick={() => void cancel(deletion)}
                              aria-label={t("players.cancelConfirmLabel", { player: playerLabel(deletion.player) })}
                            >
                              {t("players.cancelConfirm")}
                            </button>
                            <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                              {t("players.keep")}
                            </button>
                          </span>
                        ) : (
                          <button type="button" class="button small" onClick={() => setConfirming(deletion.scheduleId)} aria-label={t("players.cancelLabel", { player: playerLabel(deletion.player) })}>
                            {t("players.cancel")}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {deletions?.cursor && (
              <p>
                <button type="button" class="button" onClick={() => gameId && void loadDeletions(gameId, deletions.cursor ?? undefined)}>
                  {t("players.more")}
                </button>
              </p>
            )}
          </section>

          <DeleteNow key={`erase-${game.id}`} game={game} allowed={allowed} onDone={done} />
        </>
      )}
    </SettingsLayout>
  );
}
