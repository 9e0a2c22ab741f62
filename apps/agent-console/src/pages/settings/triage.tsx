// The triage of the AI flags (admins): the company's threshold (in percent, 50 to 100), its model
// (when trained, on how many tickets, what it predicts; "Train now" besides the nightly
// training) and the online precision of what it set and suggested, per tag and field.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";

interface Precision {
  right: number;
  wrong: number;
  precision: number | null;
}

interface TriageSettings {
  threshold: number;
  model: { trainedAt: string; tickets: number; tags: string[]; fields: string[] } | null;
  set: Precision;
  suggest: Precision;
  byName: { kind: "tag" | "field"; name: string; set: Precision; suggest: Precision }[];
}

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
const percent = new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: 1 });

function counts(count: Precision): string {
  if (count.precision === null) return t("triage.noCounts");
  return t("triage.counts", { right: count.right, wrong: count.wrong, precision: percent.format(count.precision) });
}

export function TriagePage() {
  const [settings, setSettings] = useState<TriageSettings>();
  const [threshold, setThreshold] = useState("");
  const [thresholdError, setThresholdError] = useState<string>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);

  const show = (body: TriageSettings) => {
    setSettings(body);
    setThreshold(String(Math.round(body.threshold * 1000) / 10));
  };
  useEffect(() => {
    call<TriageSettings>("GET", "/settings/triage").then(({ body }) => show(body), () => setError(t("app.error")));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    setError(undefined);
    const value = Number(threshold.trim().replace(",", "."));
    if (threshold.trim() === "" || !Number.isFinite(value) || value < 50 || value > 100) {
      setThresholdError(t("triage.thresholdInvalid"));
      return;
    }
    setThresholdError(undefined);
    setBusy(true);
    try {
      const { body } = await call<TriageSettings>("PATCH", "/settings/triage", { threshold: value / 100 });
      show(body);
      setNotice(t("triage.saved"));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setThresholdError(t("triage.thresholdInvalid"));
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  async function train() {
    setNotice(undefined);
    setError(undefined);
    setBusy(true);
    try {
      const { body } = await call<TriageSettings>("POST", "/settings/triage/train");
      show(body);
      if (body.model === null) setError(t("triage.nothingToLearn"));
      else setNotice(t("triage.trained"));
    } catch {
      setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsLayout title={t("settings.triage")}>
      <p class="hint">{t("triage.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {settings === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        <>
          <form class="inline-form" onSubmit={save} noValidate aria-labelledby="threshold-title">
            <h2 id="threshold-title">{t("triage.thresholdTitle")}</h2>
            <Field id="triage-threshold" label={t("triage.threshold")} hint={t("triage.thresholdHint")} value={threshold} onInput={setThreshold} inputMode="decimal" error={thresholdError} />
            <button type="submit" class="button primary" disabled={busy}>
              {t("triage.save")}
            </button>
          </form>
          <section aria-labelledby="model-title">
            <h2 id="model-title">{t("triage.modelTitle")}</h2>
            {settings.model === null ? (
              <p>{t("triage.noModel")}</p>
            ) : (
              <>
                <p>{t("triage.model", { date: dateTime.format(new Date(settings.model.trainedAt)), count: settings.model.tickets })}</p>
                <p>{t("triage.modelPredicts", { names: [...settings.model.tags, ...settings.model.fields].join(", ") || "—" })}</p>
              </>
            )}
            <button type="button" class="button" disabled={busy} onClick={() => void train()}>
              {t("triage.train")}
            </button>
          </section>
          <h2 id="precision-title">{t("triage.precisionTitle")}</h2>
          <p class="hint">{t("triage.precisionHint")}</p>
          <table class="settings-table" aria-labelledby="precision-title">
            <thead>
              <tr>
                <th scope="col">{t("triage.name")}</th>
                <th scope="col">{t("triage.setColumn")}</th>
                <th scope="col">{t("triage.suggestColumn")}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">{t("triage.all")}</th>
                <td>{counts(settings.set)}</td>
                <td>{counts(settings.suggest)}</td>
              </tr>
              {settings.byName.map((entry) => (
                <tr key={`${entry.kind}:${entry.name}`}>
                  <th scope="row">{entry.name}</th>
                  <td>{counts(entry.set)}</td>
                  <td>{counts(entry.suggest)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </SettingsLayout>
  );
}
