// The SLA report (admins): for the tickets created in the last weeks, per ISO week, policy and
// target, how many targets were met and how many breached, and the share met.
import { useEffect, useState } from "preact/hooks";
import { call } from "../../api.ts";
import { Alert } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";

interface ReportRow {
  week: string;
  policyId: string;
  policyName: string;
  metric: "first_response" | "next_response" | "resolution";
  met: number;
  breached: number;
  shareMet: number;
}

const WEEKS = [4, 8, 13, 26] as const;
const percent = new Intl.NumberFormat(language, { style: "percent", maximumFractionDigits: 1 });

export function SlaReportPage() {
  const [weeks, setWeeks] = useState<number>(8);
  const [rows, setRows] = useState<ReportRow[]>();
  const [error, setError] = useState(false);

  useEffect(() => {
    let current = true;
    setRows(undefined);
    call<{ rows: ReportRow[] }>("GET", `/settings/sla/report?weeks=${weeks}`).then(
      ({ body }) => {
        if (!current) return;
        setRows(body.rows);
        setError(false);
      },
      () => current && setError(true),
    );
    return () => {
      current = false;
    };
  }, [weeks]);

  return (
    <SettingsLayout title={t("slaReport.title")}>
      <p>{t("slaReport.intro")}</p>
      <div class="inbox-sort">
        <label for="sla-report-weeks">{t("slaReport.weeks")}</label>
        <select id="sla-report-weeks" value={String(weeks)} onChange={(event) => setWeeks(Number((event.target as HTMLSelectElement).value))}>
          {WEEKS.map((n) => (
            <option key={n} value={String(n)}>{t("slaReport.lastWeeks", { weeks: n })}</option>
          ))}
        </select>
      </div>
      {error && <Alert>{t("app.error")}</Alert>}
      {rows === undefined ? (
        !error && <p role="status">{t("app.loading")}</p>
      ) : rows.length === 0 ? (
        <p>{t("slaReport.empty")}</p>
      ) : (
        <table class="sla-report">
          <caption>{t("slaReport.caption", { weeks })}</caption>
          <thead>
            <tr>
              <th scope="col">{t("slaReport.week")}</th>
              <th scope="col">{t("slaReport.policy")}</th>
              <th scope="col">{t("slaReport.target")}</th>
              <th scope="col">{t("slaReport.met")}</th>
              <th scope="col">{t("slaReport.breached")}</th>
              <th scope="col">{t("slaReport.share")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.week}-${row.policyId}-${row.metric}`}>
                <td>{row.week}</td>
                <td>{row.policyName}</td>
                <td>{t(`sla.metric.${row.metric}` as MessageKey)}</td>
                <td>{row.met}</td>
                <td>{row.breached}</td>
                <td>{percent.format(row.shareMet)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsLayout>
  );
}
