// support_sla_notices_total{kind, metric}: the SLA warnings and breaches this replica announced
// (each notice is counted once, by the replica that claimed it). The alert on breaches and the
// dashboard read it.
import type { Registry } from "@support/metrics";
import { Counter } from "prom-client";

export type SlaNoticeCounter = (kind: "warning" | "breach", metric: string) => void;

export function registerSlaMetrics(registry: Registry): SlaNoticeCounter {
  const notices = new Counter({
    name: "support_sla_notices_total",
    help: "SLA warnings (kind warning) and breaches (kind breach) announced, by metric (first_response, next_response, resolution)",
    labelNames: ["kind", "metric"],
    registers: [registry],
  });
  return (kind, metric) => notices.inc({ kind, metric });
}
