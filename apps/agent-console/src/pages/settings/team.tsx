// The company's team: every user with role, games, two-factor, state, last sign-in and whether
// they are signed in now; invite a user (the invitation is mailed), send a new invitation,
// change a user's role, games and skills, reset a user's two-factor and deactivate a user (a
// second click confirms both). The API keeps an active admin; its refusals are said here.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call, type Team, type TeamMember } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";
import { me } from "../../session.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

type Role = TeamMember["role"];

/** The API's refusal in the page's words: the team rules by their type, bad input, anything else. */
function refusal(caught: unknown): string {
  if (caught instanceof ApiError) {
    const type = caught.details?.type;
    if (type === "LAST_ADMIN") return t("team.lastAdmin");
    if (type === "OWN_ROLE") return t("team.ownRole");
    if (type === "OWN_ACCOUNT") return t("team.ownAccount");
    if (caught.status === 409) return t("team.conflict");
    if (caught.status === 404) return t("team.gone");
  }
  return t("app.error");
}

/** Checkboxes for a set of values (games, skills), as one group with a legend. */
function Choices({ id, legend, hint, options, chosen, onChange, error }: {
  id: string;
  legend: string;
  hint?: string | undefined;
  options: { value: string; label: string }[];
  chosen: readonly string[];
  onChange: (chosen: string[]) => void;
  error?: string | undefined;
}) {
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <fieldset class="choices" aria-describedby={describedBy} aria-invalid={error ? "true" : undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {options.map((option) => (
        <label key={option.value} class="choice">
          <input
            type="checkbox"
            checked={chosen.includes(option.value)}
            onChange={(event) => onChange((event.currentTarget as HTMLInputElement).checked ? [...chosen, option.value] : chosen.filter((value) => value !== option.value))}
          />
          {option.label}
        </label>
      ))}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

function RoleSelect({ id, value, onChange, disabled, hint }: { id: string; value: Role; onChange: (role: Role) => void; disabled?: boolean; hint?: string | undefined }) {
  return (
    <div class="field">
      <label for={id}>{t("team.role")}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <select id={id} class="select" value={value} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value as Role)}>
        <option value="agent">{t("team.role.agent")}</option>
        <option value="admin">{t("team.role.admin")}</option>
      </select>
    </div>
  );
}

function InviteForm({ team, onInvited }: { team: Team; onInvited: (user: TeamMember, mailed: boolean) => Promise<void> }) {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [role, setRole] = useState<Role>("agent");
  const [gameIds, setGameIds] = useState<string[]>([]);
  const [errors, setErrors] = useState<{ email?: string; name?: string; displayName?: string; games?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  async function invite(event: Event) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) found.email = t("team.emailInvalid");
    if (name.trim() === "") found.name = t("team.nameMissing");
    setErrors(found);
    if (found.email || found.name) return;
    setBusy(true);
    try {
      const { body } = await call<{ user: TeamMember; mailed: boolean }>("POST", "/settings/users", {
        email: email.trim(), name: name.trim(), role, gameIds: role === "admin" ? [] : gameIds, ...(displayName.trim() === "" ? {} : { displayName: displayName.trim() }),
      });
      setEmail("");
      setName("");
      setDisplayName("");
      setRole("agent");
      setGameIds([]);
      await onInvited(body.user, body.mailed);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const paths = caught.paths;
        setErrors({
          email: paths.includes("/email") ? t("team.emailInvalid") : undefined,
          name: paths.includes("/name") ? t("team.nameMissing") : undefined,
          displayName: paths.includes("/displayName") ? t("team.displayNameInvalid") : undefined,
          games: paths.some((path) => path.startsWith("/gameIds")) ? t("team.gamesInvalid") : undefined,
        });
      } else setErrors({ form: caught instanceof ApiError && caught.status === 409 ? t("team.inviteConflict") : refusal(caught) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="inline-form invite-form" onSubmit={invite} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">{t("team.inviteTitle")}</h2>
      {errors.form && <Alert>{errors.form}</Alert>}
      <Field id="invite-email" label={t("team.email")} type="email" value={email} onInput={setEmail} autoComplete="off" error={errors.email} />
      <Field id="invite-name" label={t("team.name")} value={name} onInput={setName} autoComplete="off" error={errors.name} />
      <Field id="invite-display-name" label={t("team.displayName")} hint={t("team.displayNameHint")} value={displayName} onInput={setDisplayName} required={false} autoComplete="off" error={errors.displayName} />
      <RoleSelect id="invite-role" value={role} onChange={setRole} />
      {role === "agent" ? (
        <Choices id="invite-games" legend={t("team.games")} hint={t("team.gamesHint")} options={team.games.map((game) => ({ value: game.id, label: game.name }))} chosen={gameIds} onChange={setGameIds} error={errors.games} />
      ) : (
        <p class="hint">{t("team.adminGames")}</p>
      )}
      <button type="submit" class="button primary" disabled={busy}>
        {t("team.invite")}
      </button>
    </form>
  );
}

function EditForm({ team, user, self, onDone, onCancel }: { team: Team; user: TeamMember; self: boolean; onDone: (user: TeamMember) => Promise<void>; onCancel: () => void }) {
  const [role, setRole] = useState<Role>(user.role);
  const [gameIds, setGameIds] = useState<string[]>(user.role === "admin" ? [] : user.gameIds);
  const [skills, setSkills] = useState<string[]>(user.skills);
  const [languages, setLanguages] = useState(user.languages.join(", "));
  const [capacity, setCapacity] = useState(String(user.capacity));
  const [fieldErrors, setFieldErrors] = useState<{ languages?: string; capacity?: string }>({});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [user.id]);

  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const codes = languages.split(",").map((code) => code.trim()).filter((code) => code !== "");
      const change = {
        ...(self ? {} : { role }), ...(role === "agent" ? { gameIds } : {}), ...(team.skillTags.length > 0 ? { skills } : {}),
        languages: codes, capacity: /^\d+$/.test(capacity.trim()) ? Number(capacity.trim()) : -1,
      };
      setFieldErrors({});
      const { body } = await call<TeamMember>("PATCH", `/settings/users/${user.id}`, change);
      await onDone(body);
    } catch (caught) {
      const paths = caught instanceof ApiError ? caught.paths : [];
      const routingErrors = {
        ...(paths.some((path) => path.startsWith("/languages")) ? { languages: t("team.languagesInvalid") } : {}),
        ...(paths.some((path) => path.startsWith("/capacity")) ? { capacity: t("team.capacityInvalid") } : {}),
      };
      setFieldErrors(routingErrors);
      if (Object.keys(routingErrors).length === 0) setError(caught instanceof ApiError && caught.status === 400 ? t("team.gamesInvalid") : refusal(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="edit-member" onSubmit={save} noValidate aria-labelledby="edit-title">
      <h2 id="edit-title" tabIndex={-1} ref={heading}>
        {t("team.editTitle", { name: user.name })}
      </h2>
      {error && <Alert>{error}</Alert>}
      <RoleSelect id="edit-role" value={role} onChange={setRole} disabled={self} hint={self ? t("team.ownRoleHint") : undefined} />
      {role === "agent" ? (
        <Choices id="edit-games" legend={t("team.games")} options={team.games.map((game) => ({ value: game.id, label: game.name }))} chosen={gameIds} onChange={setGameIds} />
      ) : (
        <p class="hint">{t("team.adminGames")}</p>
      )}
      {team.skillTags.length > 0 && (
        <Choices id="edit-skills" legend={t("team.skills")} hint={t("team.skillsHint")} options={team.skillTags.map((tag) => ({ value: tag, label: tag }))} chosen={skills} onChange={setSkills} />
      )}
      <Field id="edit-languages" label={t("team.languages")} hint={t("team.languagesHint")} value={languages} onInput={setLanguages} error={fieldErrors.languages} required={false} />
      <Field id="edit-capacity" label={t("team.capacity")} hint={t("team.capacityHint")} inputMode="numeric" value={capacity} onInput={setCapacity} error={fieldErrors.capacity} />
      <div class="dialog-buttons">
        <button type="submit" class="button primary" disabled={busy}>
          {t("team.save")}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          {t("team.cancel")}
        </button>
      </div>
    </form>
  );
}

function stateOf(user: TeamMember): string {
  if (user.state === "invited" && user.invitationExpiresAt) return t("team.state.invitedUntil", { date: dateTime.format(new Date(user.invitationExpiresAt)) });
  return t(`team.state.${user.state}` as MessageKey);
}

export function TeamPage() {
  const [team, setTeam] = useState<Team>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [editing, setEditing] = useState<string>();
  const [confirming, setConfirming] = useState<{ id: string; action: "deactivate" | "reset" }>();
  const selfId = me.value?.user.id;

  const load = () =>
    call<Team>("GET", "/settings/users").then(
      ({ body }) => setTeam(body),
      () => setError(t("app.error")),
    );
  useEffect(() => void load(), []);

  const gameNames = new Map((team?.games ?? []).map((game) => [game.id, game.name]));

  async function act(user: TeamMember, method: "POST" | "DELETE", path: string, done: string) {
    setError(undefined);
    setNotice(undefined);
    try {
      await call(method, `/settings/users/${user.id}${path}`);
      setConfirming(undefined);
      setNotice(done);
      await load();
    } catch (caught) {
      setConfirming(undefined);
      setError(refusal(caught));
    }
  }

  return (
    <SettingsLayout title={t("settings.team")}>
      <p class="hint page-intro">{t("team.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {team === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        <>
          {editing !== undefined && team.users.some((user) => user.id === editing) ? (
            <EditForm
              key={editing}
              team={team}
              user={team.users.find((user) => user.id === editing)!}
              self={editing === selfId}
              onCancel={() => setEditing(undefined)}
              onDone={async (user) => {
                setEditing(undefined);
                setError(undefined);
                setNotice(t("team.saved", { name: user.name }));
                await load();
              }}
            />
          ) : (
            <InviteForm
              team={team}
              onInvited={async (user, mailed) => {
                setError(undefined);
                setNotice(mailed ? t("team.invited", { name: user.name, email: user.email }) : t("team.invitedNotMailed", { name: user.name }));
                await load();
              }}
            />
          )}
          <h2 id="team-title">{t("team.listTitle")}</h2>
          <table class="settings-table team-table" aria-labelledby="team-title">
            <thead>
              <tr>
                <th scope="col">{t("team.name")}</th>
                <th scope="col">{t("team.role")}</th>
                <th scope="col">{t("team.games")}</th>
                <th scope="col">{t("team.twoFactor")}</th>
                <th scope="col">{t("team.state")}</th>
                <th scope="col">{t("team.lastSignIn")}</th>
                <th scope="col">{t("team.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {team.users.map((user) => (
                <tr key={user.id} class={user.state === "deactivated" ? "revoked" : undefined}>
                  <th scope="row">
                    {user.name}
                    {user.id === selfId && <span class="muted"> {t("team.you")}</span>}
                    <span class="subject">{user.email}</span>
                  </th>
                  <td>{t(`team.role.${user.role}` as MessageKey)}</td>
                  <td>
                    {user.role === "admin" ? t("team.everyGame") : user.gameIds.length === 0 ? <span class="muted">{t("team.noGames")}</span> : user.gameIds.map((id) => gameNames.get(id) ?? id).join(", ")}
                    {user.skills.length > 0 && <span class="subject">{t("team.skillsList", { skills: user.skills.join(", ") })}</span>}
                    <span class="subject">
                      {t("team.routingList", { languages: user.languages.length > 0 ? user.languages.join(", ") : t("team.everyLanguage"), capacity: user.capacity })}
                    </span>
                  </td>
                  <td>{user.twoFactorEnabled ? t("team.on") : t("team.off")}</td>
                  <td>
                    {stateOf(user)}
                    {user.signedInNow && <span class="badge">{t("team.signedInNow")}</span>}
                    {user.available && <span class="badge">{t("team.available")}</span>}
                  </td>
                  <td class="when">{user.lastSignedInAt ? <time dateTime={user.lastSignedInAt}>{dateTime.format(new Date(user.lastSignedInAt))}</time> : t("team.never")}</td>
                  <td>
                    {user.state !== "deactivated" && (
                      <span class="row-actions">
                        <button type="button" class="button small" onClick={() => (setConfirming(undefined), setEditing(user.id))} aria-label={t("team.editLabel", { name: user.name })}>
                          {t("team.edit")}
                        </button>
                        {(user.state === "invited" || user.state === "invitation_expired") && (
                          <button type="button" class="button small" onClick={() => void act(user, "POST", "/invitation", t("team.resent", { name: user.name, email: user.email }))} aria-label={t("team.resendLabel", { name: user.name })}>
                            {t("team.resend")}
                          </button>
                        )}
                        {user.twoFactorEnabled &&
                          (confirming?.id === user.id && confirming.action === "reset" ? (
                            <span class="confirm">
                              <button type="button" class="button small danger" onClick={() => void act(user, "DELETE", "/two-factor", t("team.resetDone", { name: user.name }))} aria-label={t("team.resetConfirmLabel", { name: user.name })}>
                                {t("team.resetConfirm")}
                              </button>
                              <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                                {t("team.cancel")}
                              </button>
                            </span>
                          ) : (
                            <button type="button" class="button small" onClick={() => setConfirming({ id: user.id, action: "reset" })} aria-label={t("team.resetLabel", { name: user.name })}>
                              {t("team.reset")}
                            </button>
                          ))}
                        {user.id !== selfId &&
                          (confirming?.id === user.id && confirming.action === "deactivate" ? (
                            <span class="confirm">
                              <button type="button" class="button small danger" onClick={() => void act(user, "POST", "/deactivate", t("team.deactivated", { name: user.name }))} aria-label={t("team.deactivateConfirmLabel", { name: user.name })}>
                                {t("team.deactivateConfirm")}
                              </button>
                              <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                                {t("team.cancel")}
                              </button>
                            </span>
                          ) : (
                            <button type="button" class="button small" onClick={() => setConfirming({ id: user.id, action: "deactivate" })} aria-label={t("team.deactivateLabel", { name: user.name })}>
                              {t("team.deactivate")}
                            </button>
                          ))}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </SettingsLayout>
  );
}
