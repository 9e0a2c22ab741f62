// The rendered network policies of each overlay, evaluated: exactly the platform's flows are
// open (ingress controller -> gateway -> services, tickets -> content/players/media/webhooks, media -> content,
// players -> content/tickets/media, webhooks -> content and public internet :443, content -> public
// internet :443 (OpenID providers), email -> tickets/content, players/content/email -> the SMTP relay :587/:465, the admin
// tool -> content/players/webhooks, DNS, NATS, S3 for media, Prometheus -> every pod's metrics
// port) and everything else is closed.
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICES, type ServiceName } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import { OVERLAYS, overlayDir, render, type Overlay } from "./support/kustomize.ts";
import { connectionAllowed, matchesSelector, type Endpoint, type NetworkPolicy } from "./support/network-policy.ts";

const root = repoRoot();
const NAMESPACE: Record<Overlay, string> = { dev: "support-dev", production: "support" };
const S3_PORT: Record<Overlay, number> = { dev: 9000, production: 443 };
const PORT = Object.fromEntries(SERVICES.map((image) => [image.name, image.port])) as Record<ServiceName, number>;
const INTERNAL: ServiceName[] = ["content", "tickets", "media", "players", "webhooks", "email"];
const ALL: ServiceName[] = ["gateway", ...INTERNAL];
const METRICS_PORT = 9464;

// Outside the namespace.
const POSTGRES: Endpoint = { ip: "10.20.0.5" };
const NATS: Endpoint = { ip: "10.20.0.6" };
const S3: Endpoint = { ip: "52.95.1.1" };
const INTERNET: Endpoint = { ip: "93.184.216.34" };
const INGRESS_CONTROLLER: Endpoint = { pod: { "app.kubernetes.io/name": "ingress-nginx" }, namespace: "ingress-nginx" };
const KUBE_DNS: Endpoint = { pod: { "k8s-app": "kube-dns" }, namespace: "kube-system" };
const OTHER_NAMESPACE_POD: Endpoint = { pod: { app: "something" }, namespace: "default" };

const policies = new Map<Overlay, NetworkPolicy[]>();

beforeAll(() => {
  for (const overlay of OVERLAYS) {
    policies.set(
      overlay,
      render(overlayDir(root, overlay)).filter((object): object is NetworkPolicy => object.kind === "NetworkPolicy"),
    );
  }
});

describe("the evaluator", () => {
  it("reads matchExpressions", () => {
    const selector = { matchExpressions: [{ key: "app", operator: "In" as const, values: ["a", "b"] }] };
    expect(matchesSelector(selector, { app: "a" })).toBe(true);
    expect(matchesSelector(selector, { app: "c" })).toBe(false);
  });

  it("allows everything where no policy isolates a pod", () => {
    expect(connectionAllowed([], { pod: { x: "1" }, namespace: "n" }, { pod: { y: "1" }, namespace: "n" }, 1234)).toBe(true);
  });
});

describe.each(OVERLAYS.map((overlay) => [overlay]))("network policies of %s", (overlayName) => {
  const overlay = overlayName as Overlay;
  const pod = (name: ServiceName): Endpoint => ({ pod: { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "player-support" }, namespace: NAMESPACE[overlay] });
  const allowed = (from: Endpoint, to: Endpoint, port: number, protocol = "TCP") => connectionAllowed(policies.get(overlay)!, from, to, port, protocol);
  const adminTool: Endpoint = { pod: { "app.kubernetes.io/name": "admin" }, namespace: NAMESPACE[overlay] };

  it("opens the platform's flows", () => {
    expect(allowed(INGRESS_CONTROLLER, pod("gateway"), 8080)).toBe(true);
    for (const service of INTERNAL) expect(allowed(pod("gateway"), pod(service), PORT[service]), `gateway -> ${service}`).toBe(true);
    expect(allowed(pod("tickets"), pod("content"), PORT.content)).toBe(true);
    expect(allowed(pod("tickets"), pod("players"), PORT.players)).toBe(true);
    expect(allowed(pod("media"), pod("content"), PORT.content)).toBe(true);
    expect(allowed(pod("players"), pod("content"), PORT.content)).toBe(true);
    expect(allowed(pod("tickets"), pod("media"), PORT.media)).toBe(true);
    expect(allowed(pod("tickets"), pod("webhooks"), PORT.webhooks), "tickets -> webhooks (rules' callWebhook URLs)").toBe(true);
    expect(allowed(pod("players"), pod("tickets"), PORT.tickets)).toBe(true);
    expect(allowed(pod("players"), pod("media"), PORT.media)).toBe(true);
    expect(allowed(pod("webhooks"), pod("content"), PORT.content)).toBe(true);
    expect(allowed(pod("webhooks"), INTERNET, 443)).toBe(true);
    expect(allowed(pod("content"), INTERNET, 443), "content -> an OpenID provider").toBe(true);
    expect(allowed(pod("email"), pod("tickets"), PORT.tickets)).toBe(true);
    // Players' answers, from the MX or relay in front (outside the cluster).
    expect(allowed({ ip: "198.51.100.25" }, pod("email"), 2525), "MX -> email:2525").toBe(true);
    expect(allowed(pod("email"), pod("content"), PORT.content)).toBe(true);
    expect(allowed(pod("email"), pod("media"), PORT.media)).toBe(true);
    const relay: Endpoint = { ip: "10.30.0.7" };
    for (const service of ["email", "content", "players"] as const) {
      for (const port of [587, 465]) expect(allowed(pod(service), relay, port), `${service} -> the SMTP relay :${port}`).toBe(true);
    }
    for (const service of INTERNAL) expect(allowed(pod(service), POSTGRES, 5432), `${service} -> Postgres`).toBe(true);
    for (const service of ALL) {
      expect(allowed(pod(service), NATS, 4222), `${service} -> NATS`).toBe(true);
      expect(allowed(pod(service), KUBE_DNS, 53, "UDP"), `${service} -> DNS/UDP`).toBe(true);
      expect(allowed(pod(service), KUBE_DNS, 53, "TCP"), `${service} -> DNS/TCP`).toBe(true);
    }
    expect(allowed(pod("media"), S3, S3_PORT[overlay])).toBe(true);
    expect(allowed(adminTool, pod("content"), PORT.content)).toBe(true);
    expect(allowed(adminTool, pod("players"), PORT.players)).toBe(true);
    expect(allowed(adminTool, pod("webhooks"), PORT.webhooks)).toBe(true);
    expect(allowed(adminTool, pod("tickets"), PORT.tickets)).toBe(true);
    expect(allowed(adminTool, KUBE_DNS, 53, "UDP")).toBe(true);
  });

  it("lets the admin tool reach content, players, webhooks, tickets and NATS (its dead-letters verbs) only, and nothing reach it", () => {
    for (const service of ["gateway", "media"] as const) {
      expect(allowed(adminTool, pod(service), PORT[service]), `admin -> ${service}`).toBe(false);
    }
    expect(allowed(adminTool, POSTGRES, 5432)).toBe(false);
    expect(allowed(adminTool, NATS, 4222)).toBe(true);
    expect(allowed(adminTool, NATS, 8222)).toBe(false);
    for (const service of ALL) expect(allowed(pod(service), adminTool, 8080), `${service} -> admin`).toBe(false);
    // The label of the admin tool in another namespace opens nothing.
    expect(allowed({ pod: { "app.kubernetes.io/name": "admin" }, namespace: "default" }, pod("content"), PORT.content)).toBe(false);
  });

  it("lets only Prometheus in the monitoring namespace reach the metrics port (9464), never the ingress controller", () => {
    const prometheus: Endpoint = { pod: { "app.kubernetes.io/name": "prometheus" }, namespace: "monitoring" };
    for (const service of ALL) {
      expect(allowed(prometheus, pod(service), METRICS_PORT), `prometheus -> ${service}:${METRICS_PORT}`).toBe(true);
      expect(allowed(prometheus, pod(service), PORT[service]), `prometheus -> ${service}'s own port`).toBe(false);
      expect(allowed(INGRESS_CONTROLLER, pod(service), METRICS_PORT), `ingress -> ${service}:${METRICS_PORT}`).toBe(false);
      expect(allowed(OTHER_NAMESPACE_POD, pod(service), METRICS_PORT), `other namespace -> ${service}:${METRICS_PORT}`).toBe(false);
      // Another pod of the monitoring namespace, and a "prometheus" elsewhere, are not Prometheus.
      expect(allowed({ pod: { "app.kubernetes.io/name": "grafana" }, namespace: "monitoring" }, pod(service), METRICS_PORT)).toBe(false);
      expect(allowed({ pod: { "app.kubernetes.io/name": "prometheus" }, namespace: "default" }, pod(service), METRICS_PORT)).toBe(false);
      expect(allowed(adminTool, pod(service), METRICS_PORT), `admin -> ${service}:${METRICS_PORT}`).toBe(false);
      for (const other of ALL) {
        if (other !== service) expect(allowed(pod(other), pod(service), METRICS_PORT), `${other} -> ${service}:${METRICS_PORT}`).toBe(false);
      }
    }
  });

  it("closes everything else", () => {
    // Only the ingress controller reaches the gateway, and nothing from outside reaches a service.
    expect(allowed(OTHER_NAMESPACE_POD, pod("gateway"), 8080)).toBe(false);
    expect(allowed(INGRESS_CONTROLLER, pod("gateway"), 9090)).toBe(false);
    for (const service of INTERNAL) {
      expect(allowed(INGRESS_CONTROLLER, pod(service), PORT[service]), `ingress -> ${service}`).toBe(false);
      expect(allowed(OTHER_NAMESPACE_POD, pod(service), PORT[service]), `other namespace -> ${service}`).toBe(false);
      expect(allowed(pod(service), pod("gateway"), 8080), `${service} -> gateway`).toBe(false);
    }
    // Services call only what they use.
    const calls = new Set([
      "tickets>content", "tickets>players", "tickets>media", "tickets>webhooks", "media>content", "players>content", "players>tickets", "players>media", "webhooks>content",
      "email>tickets", "email>content", "email>media",
    ]);
    for (const from of INTERNAL) {
      for (const to of INTERNAL) {
        if (from === to || calls.has(`${from}>${to}`)) continue;
        expect(allowed(pod(from), pod(to), PORT[to]), `${from} -> ${to}`).toBe(false);
      }
    }
    // Webhook receivers are on public addresses only: nothing private, not the metadata endpoint,
    // not the platform's own Postgres and NATS through the internet rule.
    // The same for content's OpenID providers.
    for (const ip of ["10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "100.64.0.1", "127.0.0.1"]) {
      expect(allowed(pod("webhooks"), { ip }, 443), `webhooks -> ${ip}:443`).toBe(false);
      expect(allowed(pod("content"), { ip }, 443), `content -> ${ip}:443`).toBe(false);
    }
    // The SMTP listener is email's only port open to the outside.
    expect(allowed({ ip: "198.51.100.25" }, pod("email"), PORT.email), "outside -> email's own port").toBe(false);
    for (const service of ALL.filter((name) => name !== "email")) expect(allowed({ ip: "198.51.100.25" }, pod(service), 2525), `outside -> ${service}:2525`).toBe(false);
    // Only what sends mail speaks SMTP.
    for (const service of ALL.filter((name) => !["email", "content", "players"].includes(name))) expect(allowed(pod(service), { ip: "10.30.0.7" }, 587), `${service} -> SMTP`).toBe(false);
    // The gateway holds no database credentials and needs no Postgres; only media talks to S3.
    expect(allowed(pod("gateway"), POSTGRES, 5432)).toBe(false);
    // (webhooks and content reach every public address on 443, which includes a public S3 endpoint: they hold no S3 credentials.)
    for (const service of ALL.filter((name) => name !== "media" && name !== "webhooks" && name !== "content")) expect(allowed(pod(service), S3, S3_PORT[overlay]), `${service} -> S3`).toBe(false);
    for (const service of ALL) {
      expect(allowed(pod(service), INTERNET, 443), `${service} -> internet:443 other than S3`).toBe(service === "webhooks" || service === "content" || (service === "media" && overlay === "production"));
      expect(allowed(pod(service), INTERNET, 80), `${service} -> internet:80`).toBe(false);
    }
  });
});
