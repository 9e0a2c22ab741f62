// The ticket's SLA clocks in the ticket view: the policy, and for each target whether it runs
// (due in), is paused, was met or is breached (overdue by).
import type { TicketSla } from "../api.ts";
import { formatDateTime, formatDuration } from "../format.ts";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";

export function SlaPanel({ sla }: { sla: TicketSla }) {
  return (
    <section aria-labelledby="sla-title">
      <h2 id="sla-title">{t("sla.title", { policy: sla.policyName ?? "" })}</h2>
      <ul class="sla-clocks">
        {sla.clocks.map((clock) => (
          <li key={clock.metric + clock.cycle} class={`sla-clock sla-${clock.state}`}>
            <span class="sla-metric">{t(`sla.metric.${clock.metric}` as MessageKey)}</span>{" "}
            <span class="sla-state">
              {clock.state === "running" && clock.dueAt !== null
                ? t("sla.dueIn", { duration: formatDuration(clock.dueAt) })
                : clock.state === "breached" && clock.stoppedAt === null && clock.dueAt !== null
                  ? t("sla.overdue", { duration: formatDuration(clock.dueAt) })
                  : t(`sla.state.${clock.state}` as MessageKey)}
            </span>
            {clock.dueAt !== null && (
              <>
                {" "}
                <time dateTime={clock.dueAt}>{t("sla.dueAt", { date: formatDateTime(clock.dueAt) })}</time>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
