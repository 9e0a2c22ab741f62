// The signing secret of the rules' webhook calls (docs/automation.md, "Rules"): one for every
// rule and URL of the company, which a receiver needs to verify the calls (Standard Webhooks).
// Hidden until the admin asks; copied with a button; a new one issued with a second button (the
// previous one keeps signing beside it for a day, so receivers can switch without a gap).
import { useRef, useState } from "preact/hooks";
import { call } from "../../api.ts";
import { Alert } from "../../components/form.tsx";
import { formatDateTime } from "../../format.ts";
import { t } from "../../i18n.ts";

interface SigningSecret {
  secret: string;
  previousSecretExpiresAt: string | null;
}

export function RuleSigningSecret() {
  const [shown, setShown] = useState<SigningSecret>();
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);

  const load = async (work: () => Promise<SigningSecret>, done: string) => {
    setBusy(true);
    setError(undefined);
    try {
      setShown(await work());
      setStatus(done);
      // The field is selected for Ctrl+C once drawn.
      setTimeout(() => (field.current?.focus(), field.current?.select()), 0);
    } catch {
      setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  };
  const show = () => load(async () => (await call<SigningSecret>("GET", "/settings/rule-signing-secret")).body, t("rules.secretShownStatus"));
  const rotate = () => load(async () => (await call<SigningSecret>("POST", "/settings/rule-signing-secret/rotate")).body, t("rules.secretRotatedStatus"));
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(shown!.secret);
      setStatus(t("secret.copied"));
    } catch {
      field.current?.select();
    }
  };

  return (
    <section class="rule-secret" aria-labelledby="rule-secret-title">
      <h2 id="rule-secret-title">{t("rules.secretTitle")}</h2>
      <p class="hint">{t("rules.secretText")}</p>
      {error && <Alert>{error}</Alert>}
      {shown ? (
        <>
          <div class="secret-row">
            <label class="visually-hidden" for="rule-secret">
              {t("rules.secretLabel")}
            </label>
            <input id="rule-secret" ref={field} class="secret-field" readOnly value={shown.secret} />
            <button type="button" class="button" onClick={() => void copy()}>
              {t("secret.copy")}
            </button>
          </div>
          {shown.previousSecretExpiresAt && <p class="hint">{t("rules.secretPrevious", { time: formatDateTime(shown.previousSecretExpiresAt) })}</p>}
          <div class="form-actions">
            <button type="button" class="button" disabled={busy} onClick={() => void rotate()}>
              {t("rules.secretRotate")}
            </button>
            <button type="button" class="button" onClick={() => (setShown(undefined), setStatus(""))}>
              {t("rules.secretHide")}
            </button>
          </div>
        </>
      ) : (
        <button type="button" class="button" disabled={busy} onClick={() => void show()}>
          {t("rules.secretShow")}
        </button>
      )}
      <p role="status" class="hint">
        {status}
      </p>
    </section>
  );
}
