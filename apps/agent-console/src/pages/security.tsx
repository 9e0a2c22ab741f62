// Two-factor sign-in: its state, and enrolling — a QR code (drawn by the gateway, so the secret
// reaches no other host) or the secret typed in, confirmed with a code, then the ten recovery
// codes shown this once. Confirming replaces the session, so the page reloads who is signed in.
import { useState } from "preact/hooks";
import { ApiError, call, type Me, type TwoFactorEnrolment } from "../api.ts";
import { Alert, Field } from "../components/form.tsx";
import { AppLayout, PageTitle } from "../components/layout.tsx";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { loadMe } from "../session.ts";

type Step = { kind: "idle" } | { kind: "enrolling"; enrolment: TwoFactorEnrolment } | { kind: "codes"; codes: string[] };

export function Security({ user }: { user: Me }) {
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const [code, setCode] = useState("");
  const [error, setError] = useState<string>();
  const [codeError, setCodeError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const required = user.session.scope === "two_factor_enrolment";

  async function start() {
    setBusy(true);
    setError(undefined);
    try {
      const { body } = await call<TwoFactorEnrolment>("POST", "/two-factor/enrolment");
      setStep({ kind: "enrolling", enrolment: body });
    } catch {
      setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  async function confirm(event: Event) {
    event.preventDefault();
    setBusy(true);
    setCodeError(undefined);
    setError(undefined);
    try {
      const { body } = await call<{ recoveryCodes: string[] }>("POST", "/two-factor/enrolment/confirm", { code: code.replace(/\s+/g, "") });
      setStep({ kind: "codes", codes: body.recoveryCodes });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400 && caught.paths.includes("/code")) setCodeError(t("security.codeWrong"));
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  async function done() {
    await loadMe();
    navigate("/account", { replace: true });
  }

  return (
    <AppLayout>
      <PageTitle>{t("security.title")}</PageTitle>
      {required && step.kind !== "codes" && <Alert>{t("security.required")}</Alert>}
      {error && <Alert>{error}</Alert>}
      {step.kind === "idle" &&
        (user.twoFactor.enabled ? (
          <p>{t("security.enabledText")}</p>
        ) : (
          <>
            <p>{t("security.offText")}</p>
            <button type="button" class="button primary" disabled={busy} onClick={() => void start()}>
              {t("security.start")}
            </button>
          </>
        ))}
      {step.kind === "enrolling" && (
        <>
          <ol class="steps">
            <li>{t("security.scan")}</li>
            <li>{t("security.enterCode")}</li>
          </ol>
          <img class="qr" src={step.enrolment.qrCode} alt={t("security.qrAlt")} width={200} height={200} />
          <p>
            {t("security.secretText")} <code class="secret">{step.enrolment.secret}</code>
          </p>
          <form onSubmit={confirm} noValidate>
            <Field id="code" label={t("security.code")} value={code} onInput={setCode} autoComplete="one-time-code" inputMode="numeric" error={codeError} autoFocus />
            <button type="submit" class="button primary" disabled={busy}>
              {t("security.confirm")}
            </button>
          </form>
        </>
      )}
      {step.kind === "codes" && (
        <>
          <Alert kind="success">{t("security.nowOn")}</Alert>
          <h2>{t("security.codesTitle")}</h2>
          <p>{t("security.codesText")}</p>
          <ul class="codes" aria-label={t("security.codesTitle")}>
            {step.codes.map((recoveryCode) => (
              <li key={recoveryCode}>
                <code>{recoveryCode}</code>
              </li>
            ))}
          </ul>
          <button type="button" class="button primary" onClick={() => void done()}>
            {t("security.saved")}
          </button>
        </>
      )}
    </AppLayout>
  );
}
