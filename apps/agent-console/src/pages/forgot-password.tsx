// Asking for a password-reset link. The answer is the same whether or not the email belongs to
// anyone, so the page never says whether an account exists.
import { useState } from "preact/hooks";
import { ApiError, call } from "../api.ts";
import { Alert, Field } from "../components/form.tsx";
import { Link, PageTitle, PublicLayout } from "../components/layout.tsx";
import { t } from "../i18n.ts";

export function ForgotPassword() {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/password-reset", { email: email.trim() });
      setSent(true);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400 && caught.paths.includes("/email")) setError(t("forgot.badEmail"));
      else if (caught instanceof ApiError && caught.status === 400) setError(t("forgot.noMail"));
      else if (caught instanceof ApiError && caught.status === 429) setError(t("signIn.locked", { minutes: Math.max(1, Math.ceil((caught.retryAfterSeconds ?? 60) / 60)) }));
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout>
      <PageTitle>{t("forgot.title")}</PageTitle>
      {sent ? (
        <Alert kind="success">{t("forgot.sent", { email: email.trim() })}</Alert>
      ) : (
        <>
          <p>{t("forgot.intro")}</p>
          {error && <Alert>{error}</Alert>}
          <form onSubmit={submit} noValidate>
            <Field id="email" label={t("signIn.email")} type="email" value={email} onInput={setEmail} autoComplete="username" inputMode="email" autoFocus />
            <button type="submit" class="button primary" disabled={busy}>
              {t("forgot.submit")}
            </button>
          </form>
        </>
      )}
      <p class="below-form">
        <Link to="/sign-in">{t("forgot.back")}</Link>
      </p>
    </PublicLayout>
  );
}
