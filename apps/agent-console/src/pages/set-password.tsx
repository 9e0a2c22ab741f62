// The page an invitation or password-reset link opens: `/app/welcome#token=…` or
// `/app/reset-password#token=…`. The token is in the fragment, which no server and no log
// sees; the page takes it out of the address at once, asks what the link is for and lets the
// user choose a password. A link works once.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type LinkInfo } from "../api.ts";
import { Alert, Field } from "../components/form.tsx";
import { Link, Loading, PageTitle, PublicLayout } from "../components/layout.tsx";
import { t } from "../i18n.ts";

/** The token of the address's fragment, removed from the address (and so from the history). */
function takeToken(): string | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? undefined;
  if (location.hash !== "") history.replaceState(null, "", location.pathname + location.search);
  return token;
}

type State = { kind: "checking" } | { kind: "unusable" } | { kind: "ready"; link: LinkInfo } | { kind: "done"; link: LinkInfo };

export function SetPassword({ purpose }: { purpose: LinkInfo["purpose"] }) {
  const [token] = useState(takeToken);
  const [state, setState] = useState<State>({ kind: "checking" });
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [errors, setErrors] = useState<{ form?: string; password?: string; repeat?: string }>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (token === undefined) {
      setState({ kind: "unusable" });
      return;
    }
    call<LinkInfo>("POST", "/links/inspect", { token }).then(
      ({ body }) => setState(body.purpose === purpose ? { kind: "ready", link: body } : { kind: "unusable" }),
      () => setState({ kind: "unusable" }),
    );
  }, [token, purpose]);

  async function submit(event: Event) {
    event.preventDefault();
    if (state.kind !== "ready" || token === undefined) return;
    if (password !== repeat) {
      setErrors({ repeat: t("password.mismatch") });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await call("POST", "/links/redeem", { token, password });
      setState({ kind: "done", link: state.link });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400 && caught.paths.includes("/password")) setErrors({ password: t("password.weak") });
      else if (caught instanceof ApiError && caught.status === 404) setState({ kind: "unusable" });
      else setErrors({ form: t("app.error") });
    } finally {
      setBusy(false);
    }
  }

  const title = purpose === "invitation" ? t("link.welcomeTitle") : t("link.resetTitle");
  if (state.kind === "checking") return <Loading />;
  if (state.kind === "unusable") {
    return (
      <PublicLayout>
        <PageTitle>{title}</PageTitle>
        <Alert>{t("link.unusable")}</Alert>
        <p>{purpose === "invitation" ? t("link.unusableInvitation") : t("link.unusableReset")}</p>
        <p class="below-form">
          {purpose === "invitation" ? <Link to="/sign-in">{t("forgot.back")}</Link> : <Link to="/forgot-password">{t("link.newReset")}</Link>}
        </p>
      </PublicLayout>
    );
  }
  if (state.kind === "done") {
    return (
      <PublicLayout>
        <PageTitle>{title}</PageTitle>
        <Alert kind="success">{t("link.done")}</Alert>
        <p class="below-form">
          <Link to="/sign-in" className="button primary">
            {t("signIn.submit")}
          </Link>
        </p>
      </PublicLayout>
    );
  }
  const { link } = state;
  return (
    <PublicLayout>
      <PageTitle>{title}</PageTitle>
      <p>{purpose === "invitation" ? t("link.welcomeIntro", { name: link.name }) : t("link.resetIntro", { name: link.name })}</p>
      <p class="muted">{t("link.account", { email: link.email })}</p>
      {errors.form && <Alert>{errors.form}</Alert>}
      <form onSubmit={submit} noValidate>
        {/* The account's email for the browser's password manager, which files the new password under it. */}
        <input type="email" name="username" autoComplete="username" value={link.email} hidden readOnly />
        <Field id="new-password" label={t("password.new")} type="password" value={password} onInput={setPassword} autoComplete="new-password" hint={t("password.rule")} error={errors.password} autoFocus />
        <Field id="repeat-password" label={t("password.repeat")} type="password" value={repeat} onInput={setRepeat} autoComplete="new-password" error={errors.repeat} />
        <button type="submit" class="button primary" disabled={busy}>
          {t("password.save")}
        </button>
      </form>
    </PublicLayout>
  );
}
