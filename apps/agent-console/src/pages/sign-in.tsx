// Sign-in: email and password, or the company's single sign-on; then, for a user with
// two-factor on, the code of their authenticator app or a recovery code. Afterwards the user
// goes where they were going (`?next=`, a path of the console only). Single sign-on comes back
// here with `?error=sso_…` when it failed, or `?step=two_factor` when the code is still needed.
import { useState } from "preact/hooks";
import { ApiError, call, type TwoFactorChallenge } from "../api.ts";
import { Alert, Field } from "../components/form.tsx";
import { Link, PageTitle, PublicLayout } from "../components/layout.tsx";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { navigate, queryParameter, safeReturnPath } from "../router.ts";
import { loadMe } from "../session.ts";

type Step = "password" | "code";

const SSO_ERRORS: Record<string, MessageKey> = {
  sso_invalid_state: "sso.invalidState",
  sso_provider_error: "sso.providerError",
  sso_refused: "sso.refused",
};

/** The landing of single sign-on: an error to show, or the code step to go on with. */
function ssoLanding(): { step: Step; error: string | undefined } {
  const error = queryParameter("error");
  return {
    step: queryParameter("step") === "two_factor" ? "code" : "password",
    error: error === null ? undefined : t(SSO_ERRORS[error] ?? "sso.providerError"),
  };
}

function errorText(error: unknown, step: Step): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return t("signIn.locked", { minutes: Math.max(1, Math.ceil((error.retryAfterSeconds ?? 60) / 60)) });
    if (error.status === 401) return step === "password" ? t("signIn.wrong") : t("signIn.codeWrong");
    if (error.status === 403) return t("signIn.refused");
  }
  return t("app.error");
}

export function SignIn() {
  const [landing] = useState(ssoLanding);
  const [step, setStep] = useState<Step>(landing.step);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | undefined>(landing.error);
  const [busy, setBusy] = useState(false);

  /**
   * Single sign-on: asks first whether the email's company has it (a navigation to a refusal
   * would show the browser a bare error), then sends the browser to the provider.
   */
  async function singleSignOn() {
    setError(undefined);
    if (!email.trim().includes("@")) {
      setError(t("sso.emailFirst"));
      return;
    }
    setBusy(true);
    const url = `/agent-api/sso/start?${new URLSearchParams({ email: email.trim(), next: safeReturnPath(queryParameter("next")) })}`;
    try {
      const answer = await fetch(url, { redirect: "manual", credentials: "same-origin" });
      if (answer.type === "opaqueredirect") {
        location.assign(url);
        return;
      }
      setError(answer.status === 404 ? t("sso.notSetUp") : answer.status === 429 ? t("signIn.locked", { minutes: 1 }) : t("sso.providerError"));
    } catch {
      setError(t("app.error"));
    }
    setBusy(false);
  }

  async function finish() {
    await loadMe();
    navigate(safeReturnPath(queryParameter("next")), { replace: true });
  }

  async function submitPassword(event: Event) {
    event.preventDefault();
    if (email.trim() === "" || password === "") {
      setError(t("signIn.missing"));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<TwoFactorChallenge | undefined>("POST", "/sign-in", { email: email.trim(), password });
      if (answer.status === 200 && answer.body?.twoFactorRequired) {
        setPassword("");
        setStep("code");
      } else {
        await finish();
      }
    } catch (caught) {
      setError(errorText(caught, "password"));
    } finally {
      setBusy(false);
    }
  }

  async function submitCode(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", "/sign-in/totp", { code: code.replace(/\s+/g, "") });
      await finish();
    } catch (caught) {
      setError(errorText(caught, "code"));
    } finally {
      setBusy(false);
    }
  }

  if (step === "code") {
    return (
      <PublicLayout>
        <PageTitle>{t("signIn.codeTitle")}</PageTitle>
        <p>{t("signIn.codeIntro")}</p>
        {error && <Alert>{error}</Alert>}
        <form onSubmit={submitCode} noValidate>
          <Field id="code" label={t("signIn.code")} value={code} onInput={setCode} autoComplete="one-time-code" hint={t("signIn.codeHint")} autoFocus />
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? t("signIn.busy") : t("signIn.confirm")}
          </button>{" "}
          <button
            type="button"
            class="button"
            onClick={() => {
              setStep("password");
              setCode("");
              setError(undefined);
            }}
          >
            {t("signIn.startOver")}
          </button>
        </form>
      </PublicLayout>
    );
  }

  return (
    <PublicLayout>
      <PageTitle>{t("signIn.title")}</PageTitle>
      {error && <Alert>{error}</Alert>}
      <form onSubmit={submitPassword} noValidate>
        <Field id="email" label={t("signIn.email")} type="email" value={email} onInput={setEmail} autoComplete="username" inputMode="email" autoFocus />
        <Field id="password" label={t("signIn.password")} type="password" value={password} onInput={setPassword} autoComplete="current-password" />
        {/* Never disabled for empty fields: Enter in a field must always submit (a disabled default button blocks it). */}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? t("signIn.busy") : t("signIn.submit")}
        </button>
      </form>
      <p class="below-form">
        <Link to="/forgot-password">{t("signIn.forgot")}</Link>
      </p>
      <div class="alternative">
        <p class="hint">{t("sso.hint")}</p>
        <button type="button" class="button" disabled={busy} onClick={() => void singleSignOn()}>
          {t("sso.button")}
        </button>
      </div>
    </PublicLayout>
  );
}
