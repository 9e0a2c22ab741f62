// The monitoring component (deploy/k8s/components/monitoring): rendered by kustomize, its
// PodMonitor and PrometheusRule valid against the Prometheus Operator's API schemas, its rules
// accepted and unit-tested by promtool (or, where promtool cannot be had, checked against the
// schema only, and the test's name says so), and every series the rules and the dashboard use
// one the services expose (metrics.json) or one named with where it comes from.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { repoRoot } from "../scripts/repo.ts";
import { overlayDir, render, type K8sObject } from "./support/kustomize.ts";
import { byKind, find, validateObject, type Deployment } from "./support/manifests.ts";
import { matchesSelector } from "./support/network-policy.ts";
import { promtool, runPromtool } from "./support/promtool.ts";
import { seriesUse } from "./support/promql.ts";

const root = repoRoot();
const COMPONENT = join(root, "deploy", "k8s", "components", "monitoring");
const SERVICES = ["gateway", "content", "tickets", "media", "players", "webhooks", "email"];

interface Contract {
  series: { name: string; type: "histogram" | "gauge" | "counter"; labels: string[] }[];
  runtimePrefixes: string[];
  targetLabels: string[];
  external: Record<string, string>;
}
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleGroup {
  name: string;
  rules: Rule[];
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string; refId: string; datasource?: { uid: string } }[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; query: string | { query: string } }[] };
}
type PodMonitor = K8sObject & {
  spec: {
    jobLabel?: string;
    selector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: "In"; values: string[] }[] };
    podMetricsEndpoints: { port: string; path: string; relabelings?: { sourceLabels?: string[]; targetLabel?: string }[] }[];
  };
};

const contract = JSON.parse(readFileSync(join(COMPONENT, "metrics.json"), "utf8")) as Contract;
const dashboard = JSON.parse(readFileSync(join(COMPONENT, "dashboard.json"), "utf8")) as Dashboard;
const operations = readFileSync(join(root, "docs", "operations.md"), "utf8");
const tool = promtool();

let component: K8sObject[];
let production: K8sObject[];
let dev: K8sObject[];
let groups: RuleGroup[];
let work: string;

beforeAll(() => {
  component = render(COMPONENT);
  production = render(overlayDir(root, "production"));
  dev = render(overlayDir(root, "dev"));
  groups = (find<K8sObject & { spec: { groups: RuleGroup[] } }>(component, "PrometheusRule", "player-support")).spec.groups;
  work = mkdtempSync(join(tmpdir(), "monitoring-test-"));
  writeFileSync(join(work, "rules.yaml"), stringify({ groups }));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const alerts = () => groups.flatMap((group) => group.rules).filter((rule): rule is Rule & { alert: string } => rule.alert !== undefined);
const dashboardExpressions = () =>
  dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel ${panel.id} ${panel.title} ${target.refId}`, expr: target.expr })));
const allExpressions = () => [
  ...alerts().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...dashboardExpressions(),
  ...dashboard.templating.list
    .filter((variable) => typeof variable.query === "object")
    .map((variable) => ({ where: `variable ${variable.name}`, expr: (variable.query as { query: string }).query.replace(/^label_values\((.*),\s*\w+\)$/, "$1") })),
];

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, "").replace(/\s/g, "-");
}

describe("the monitoring component", () => {
  it("renders a PodMonitor, a PrometheusRule and the dashboard ConfigMap, valid against their schemas", async () => {
    expect(component.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      "ConfigMap/player-support-dashboard",
      "PodMonitor/player-support",
      "PrometheusRule/player-support",
    ]);
    const invalid: string[] = [];
    for (const object of component) {
      await validateObject(object).catch((error: Error) => invalid.push(`${object.kind}/${object.metadata.name}: ${error.message}`));
    }
    expect(invalid).toEqual([]);
  });

  it("has a schema check that refuses malformed objects of these kinds", async () => {
    const podMonitor = structuredClone(find<PodMonitor>(component, "PodMonitor", "player-support"));
    (podMonitor.spec.podMetricsEndpoints[0] as unknown as { port: number }).port = 9464;
    await expect(validateObject(podMonitor)).rejects.toThrow(/port/);
    const rule = structuredClone(find<K8sObject & { spec: { groups: unknown[] } }>(component, "PrometheusRule", "player-support"));
    rule.spec.groups = [{ rules: [{ alert: "X", expr: "up" }] }]; // a group needs a name
    await expect(validateObject(rule)).rejects.toThrow(/name/);
  });

  it("is part of the production overlay, in its namespace, and not of dev", () => {
    for (const [kind, name] of [["PodMonitor", "player-support"], ["PrometheusRule", "player-support"], ["ConfigMap", "player-support-dashboard"]] as const) {
      expect(find(production, kind, name).metadata.namespace).toBe("support");
      expect(dev.some((object) => object.kind === kind && object.metadata.name === name), `${kind} in dev`).toBe(false);
    }
  });

  it("scrapes the `metrics` port (9464, /metrics) of every Deployment's pods, which no Service or Ingress exposes", () => {
    const podMonitor = find<PodMonitor>(production, "PodMonitor", "player-support");
    expect(podMonitor.spec.podMetricsEndpoints).toHaveLength(1);
    const endpoint = podMonitor.spec.podMetricsEndpoints[0]!;
    expect(endpoint).toMatchObject({ port: "metrics", path: "/metrics" });
    // Targets are labelled job="player-support" and service="<app name>": the rules select on them.
    expect(podMonitor.spec.jobLabel).toBe("app.kubernetes.io/part-of");
    expect(endpoint.relabelings).toContainEqual(expect.objectContaining({ sourceLabels: ["__meta_kubernetes_pod_label_app_kubernetes_io_name"], targetLabel: "service" }));
    const deployments = byKind<Deployment>(production, "Deployment");
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual([...SERVICES].sort());
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels;
      expect(matchesSelector(podMonitor.spec.selector, labels), `PodMonitor selects ${deployment.metadata.name}`).toBe(true);
      expect(labels["app.kubernetes.io/part-of"]).toBe("player-support");
      const ports = deployment.spec.template.spec.containers[0]!.ports ?? [];
      expect(ports.find((port) => port.name === "metrics"), deployment.metadata.name).toEqual({ name: "metrics", containerPort: 9464, protocol: "TCP" });
    }
    for (const service of byKind<K8sObject & { spec: { ports: { port: number; targetPort: string | number }[] } }>(production, "Service")) {
      for (const port of service.spec.ports) {
        expect([port.targetPort, port.port], `Service ${service.metadata.name}`).not.toContain("metrics");
        expect([port.targetPort, port.port], `Service ${service.metadata.name}`).not.toContain(9464);
      }
    }
  });

  it("ships the dashboard as a ConfigMap for Grafana's sidecar (label grafana_dashboard: \"1\"), generated from dashboard.json", () => {
    const configMap = find<K8sObject & { data: Record<string, string> }>(production, "ConfigMap", "player-support-dashboard");
    expect(configMap.metadata.labels?.grafana_dashboard).toBe("1");
    expect(Object.keys(configMap.data)).toEqual(["player-support.json"]);
    expect(JSON.parse(configMap.data["player-support.json"]!)).toEqual(dashboard);
  });

  it("alerts on what matters: outbox age, redeliveries, 5xx ratio, overdue deletions, unready pods", () => {
    const uses = (name: string) => seriesUse(alerts().find((rule) => rule.alert === name)!.expr).metrics;
    expect(uses("SupportOutboxStuck")).toContain("support_outbox_oldest_age_seconds");
    expect(uses("SupportConsumerRedeliveriesRising")).toContain("support_jetstream_redeliveries_total");
    expect(uses("SupportEventsDeadLettered")).toContain("support_events_dead_lettered_total");
    expect(uses("SupportHigh5xxRatio")).toContain("http_server_request_duration_seconds_count");
    expect(uses("SupportDeletionsOverdue")).toContain("support_deletions_overdue");
    expect(uses("SupportWebhookDeliveriesFailing")).toContain("support_webhook_deliveries_total");
    expect(uses("SupportWebhookDeliveriesStuck")).toContain("support_webhook_oldest_pending_age_seconds");
    expect(uses("SupportPodNotReady")).toContain("kube_pod_status_ready");
  });

  it("gives every alert a severity, a duration where a blip must not page, a summary, a description and a runbook section in docs/operations.md", () => {
    const anchors = new Set([...operations.matchAll(/^#{2,4} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
    const names = alerts().map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of alerts()) {
      expect(["critical", "warning"], rule.alert).toContain(rule.labels?.severity);
      // Only counters of given-up messages fire at once: each one is a lost effect.
      if (rule.alert !== "SupportEventsDeadLettered") expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
      const runbook = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.runbook_url ?? "");
      expect(runbook, `${rule.alert} runbook_url`).not.toBeNull();
      expect(anchors.has(runbook![1]!), `${rule.alert}: no section #${runbook![1]} in docs/operations.md`).toBe(true);
    }
  });

  it("uses only the series the services expose (metrics.json) and the labels they carry, or series named as external", () => {
    const labelsOf = new Map<string, Set<string>>();
    for (const series of contract.series) {
      const names = series.type === "histogram" ? ["_bucket", "_count", "_sum"].map((suffix) => series.name + suffix) : [series.name];
      for (const name of names) labelsOf.set(name, new Set([...series.labels, ...contract.targetLabels, ...(name.endsWith("_bucket") ? ["le"] : [])]));
    }
    const used = new Set<string>();
    const problems: string[] = [];
    for (const { where, expr } of allExpressions()) {
      const use = seriesUse(expr);
      const allowedGrouping = new Set<string>(contract.targetLabels);
      for (const metric of use.metrics) {
        used.add(metric);
        const runtime = contract.runtimePrefixes.some((prefix) => metric.startsWith(prefix));
        if (!labelsOf.has(metric) && !runtime && !(metric in contract.external)) problems.push(`${where}: ${metric} is not in metrics.json`);
        for (const label of labelsOf.get(metric) ?? []) allowedGrouping.add(label);
      }
      for (const [metric, labels] of use.selectorLabels) {
        const known = labelsOf.get(metric);
        if (!known) continue; // runtime and external series carry their own labels
        for (const label of labels) if (!known.has(label)) problems.push(`${where}: ${metric} has no label ${label}`);
      }
      const external = [...use.metrics].some((metric) => metric in contract.external || contract.runtimePrefixes.some((prefix) => metric.startsWith(prefix)));
      if (!external) for (const label of use.groupingLabels) if (!allowedGrouping.has(label)) problems.push(`${where}: groups by unknown label ${label}`);
    }
    expect(problems).toEqual([]);
    // The check saw the expressions: the contract's series all appear somewhere.
    for (const series of contract.series) {
      const names = series.type === "histogram" ? [`${series.name}_bucket`, `${series.name}_count`] : [series.name];
      expect(names.some((name) => used.has(name)), `${series.name} is neither alerted on nor shown`).toBe(true);
    }
  });

  it("reads series and labels out of PromQL", () => {
    const use = seriesUse(
      'sum by (le, route) (rate(http_server_request_duration_seconds_bucket{job="x", status=~"5.."}[5m] offset 1h)) / on (namespace) group_left up > 1e3 and absent(foo_total)',
    );
    expect([...use.metrics].sort()).toEqual(["foo_total", "http_server_request_duration_seconds_bucket", "up"]);
    expect([...use.selectorLabels.get("http_server_request_duration_seconds_bucket")!].sort()).toEqual(["job", "status"]);
    expect([...use.groupingLabels].sort()).toEqual(["le", "namespace", "route"]);
  });

  it("has a dashboard showing request rate, errors and latency per route, outbox and consumer lag, and RPC latency per hop", () => {
    const titles = dashboard.panels.map((panel) => panel.title);
    for (const title of ["Request rate per route", "Errors per route (5xx share)", "Latency p95 per route", "Outbox: oldest unpublished event", "Consumer lag (pending)", "RPC client latency p95 per hop"]) {
      expect(titles).toContain(title);
    }
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== "row")) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
      for (const target of panel.targets!) expect(target.expr, panel.title).toContain('job="player-support", namespace="$namespace"');
    }
    const perHop = dashboard.panels.find((panel) => panel.title === "RPC client latency p95 per hop")!;
    expect(seriesUse(perHop.targets![0]!.expr).groupingLabels).toEqual(new Set(["le", "service", "rpc_service"]));
  });

  if ("path" in tool) {
    const path = tool.path;

    it("passes `promtool check rules`", () => {
      const result = runPromtool(path, ["check", "rules", join(work, "rules.yaml")]);
      expect(result.output).toContain(`SUCCESS: ${groups.flatMap((group) => group.rules).length} rules found`);
      expect(result.status, result.output).toBe(0);
    });

    it("passes the promtool unit tests of its alerts (`promtool test rules`, deploy/test/fixtures/alert-rules.test.yaml)", () => {
      copyFileSync(join(root, "deploy", "test", "fixtures", "alert-rules.test.yaml"), join(work, "alert-rules.test.yaml"));
      const result = runPromtool(path, ["test", "rules", "alert-rules.test.yaml"], work);
      expect(result.status, result.output).toBe(0);
      expect(result.output).toContain("SUCCESS");
    });

    it("has dashboard queries that promtool parses", () => {
      // Grafana's variables as a Prometheus would see them once Grafana substituted them.
      const rules = dashboardExpressions().map(({ expr }, index) => ({ record: `dashboard:query_${index}`, expr: expr.replaceAll("$__rate_interval", "5m") }));
      writeFileSync(join(work, "dashboard-rules.yaml"), stringify({ groups: [{ name: "dashboard", rules }] }));
      const result = runPromtool(path, ["check", "rules", join(work, "dashboard-rules.yaml")]);
      expect(result.status, result.output).toBe(0);
    });

    it("runs a promtool that refuses a broken rule (the check bites)", () => {
      writeFileSync(join(work, "broken.yaml"), stringify({ groups: [{ name: "broken", rules: [{ alert: "Broken", expr: "sum by (x (up)" }] }] }));
      expect(runPromtool(path, ["check", "rules", join(work, "broken.yaml")]).status).not.toBe(0);
    });
  } else {
    const reason = tool.unavailable;
    it(`checks the rules against the PrometheusRule schema only, because ${reason}`, async () => {
      console.warn(`monitoring.test.ts: promtool unavailable (${reason}); rules checked against the schema only`);
      await validateObject(find(component, "PrometheusRule", "player-support"));
      for (const rule of groups.flatMap((group) => group.rules)) {
        let depth = 0;
        for (const char of rule.expr.replace(/"(?:[^"\\]|\\.)*"/g, "")) {
          depth += "([{".includes(char) ? 1 : ")]}".includes(char) ? -1 : 0;
          expect(depth, `${rule.alert ?? rule.record}: unbalanced brackets`).toBeGreaterThanOrEqual(0);
        }
        expect(depth, `${rule.alert ?? rule.record}: unbalanced brackets`).toBe(0);
      }
    });
  }
});
