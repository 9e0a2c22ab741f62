// Outbreak detection's settings (docs/automation.md, "Outbreaks"): on or off for the company,
// how many alike tickets within how many minutes open an incident, and how alike. The API checks
// the ranges and names a value out of its range; the page shows that message at the field.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { t } from "../../i18n.ts";

interface OutbreakSettings {
  enabled: boolean;
  minTickets: number;
  windowMinutes: number;
  similarity: number;
}

type Values = { enabled: boolean; minTickets: string; windowMinutes: string; similarity: string };

export function OutbreaksPage() {
  const [values, setValues] = useState<Values>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [busy, setBusy] = useState(false);

  const show = (settings: OutbreakSettings) =>
    setValues({ enabled: settings.enabled, minTickets: String(settings.minTickets), windowMinutes: String(settings.windowMinutes), similarity: String(settings.similarity) });
  useEffect(() => {
    void call<OutbreakSettings>("GET", "/settings/outbreaks").then(({ body }) => show(body), () => setMessage({ kind: "error", text: t("app.error") }));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    if (!values) return;
    setBusy(true);
    setMessage(undefined);
    setErrors({});
    try {
      const { body } = await call<OutbreakSettings>("PUT", "/settings/outbreaks", {
        enabled: values.enabled, minTickets: Number(values.minTickets), windowMinutes: Number(values.windowMinutes), similarity: Number(values.similarity.replace(",", ".")),
      });
      show(body);
      setMessage({ kind: "success", text: t("outbreaks.saved") });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const named: Record<string, string> = {};
        for (const path of caught.paths) {
          const key = path.slice(1);
          named[key] = t(`outbreaks.${key}Invalid` as never);
        }
        setErrors(Object.keys(named).length > 0 ? named : { minTickets: t("outbreaks.minTicketsInvalid") });
        const first = Object.keys(named)[0] ?? "minTickets";
        setTimeout(() => document.getElementById(`outbreaks-${first}`)?.focus());
      } else setMessage({ kind: "error", text: t("app.error") });
    } finally {
      setBusy(false);
    }
  }

  const set = (name: keyof Values) => (value: string) => setValues((current) => current && { ...current, [name]: value });
  return (
    <SettingsLayout title={t("settings.outbreaks")}>
      <p class="hint page-intro">{t("outbreaks.intro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      {!values ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        <form class="inline-form" onSubmit={(event) => void save(event)} noValidate>
          <div class="field checkbox">
            <label>
              <input type="checkbox" id="outbreaks-enabled" checked={values.enabled} onChange={(event) => setValues({ ...values, enabled: (event.currentTarget as HTMLInputElement).checked })} />{" "}
              {t("outbreaks.enabled")}
            </label>
          </div>
          <Field id="outbreaks-minTickets" label={t("outbreaks.minTickets")} hint={t("outbreaks.minTicketsHint")} inputMode="numeric" value={values.minTickets} onInput={set("minTickets")} error={errors.minTickets} />
          <Field id="outbreaks-windowMinutes" label={t("outbreaks.windowMinutes")} hint={t("outbreaks.windowMinutesHint")} inputMode="numeric" value={values.windowMinutes} onInput={set("windowMinutes")} error={errors.windowMinutes} />
          <Field id="outbreaks-similarity" label={t("outbreaks.similarity")} hint={t("outbreaks.similarityHint")} value={values.similarity} onInput={set("similarity")} error={errors.similarity} />
          <button type="submit" class="button primary" disabled={busy}>
            {t("outbreaks.save")}
          </button>
        </form>
      )}
    </SettingsLayout>
  );
}
