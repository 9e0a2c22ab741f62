// Renders every overlay with `kubectl kustomize`, validates every object against the Kubernetes
// schemas, and checks what the platform promises of each: hardened containers, probes of the
// right kind, requests and limits, migrations as an init container with the schema owner's
// secret, secrets only by reference, and a configuration each service actually reads.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICES, migrateCommand, type ServiceImage } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import { OVERLAYS, overlayDir, render, type K8sObject, type Overlay } from "./support/kustomize.ts";
import {
  byKind,
  cpuMillis,
  find,
  memoryBytes,
  selects,
  validateObject,
  type Container,
  type Deployment,
} from "./support/manifests.ts";

const root = repoRoot();
const NAMESPACE: Record<Overlay, string> = { dev: "support-dev", production: "support" };
const INTERNAL = SERVICES.filter((image) => image.name !== "gateway");
/**
 * Settings that must be set explicitly in a cluster (their local defaults point at 127.0.0.1 or
 * are development-only): every process listens on every interface (its own default is loopback)
 * and holds its service identity key; every service also the trust of its callers' keys.
 */
const REQUIRED_ENV: Record<string, string[]> = {
  gateway: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "PORT", "NATS_URL", "CONTENT_URL", "TICKETS_URL", "MEDIA_URL", "PLAYERS_URL", "WEBHOOKS_URL", "EMAIL_URL", "WEB_SUPPORT_URL", "TRUST_PROXY"],
  content: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "TOTP_ENCRYPTION_KEY"],
  tickets: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "CONTENT_URL", "PLAYERS_URL", "MEDIA_URL", "WEBHOOKS_URL", "CURSOR_SECRET", "SUPPORT_APP_URL"],
  media: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "CONTENT_URL", "S3_REGION", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_FORCE_PATH_STYLE"],
  players: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "CONTENT_URL", "TICKETS_URL", "MEDIA_URL"],
  webhooks: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "CONTENT_URL", "WEBHOOK_SECRETS_KEY"],
  email: ["HOST", "METRICS_HOST", "SERVICE_IDENTITY_KEY", "SERVICE_IDENTITY_TRUST", "PORT", "NATS_URL", "DATABASE_URL", "TICKETS_URL", "CONTENT_URL", "MEDIA_URL", "SMTP_URL", "MAIL_FROM"],
};
/** Names of variables that hold credentials (PUBLIC_RATE_LIMIT_PER_TOKEN is a count, not a token; SMTP_URL carries the relay's). */
const SENSITIVE = /SECRET|PASSWORD|PRIVATE_KEY|IDENTITY_KEY|ACCESS_KEY|CREDENTIAL|API_KEY$|AUTH_TOKEN|DATABASE_URL|SMTP_URL/;

const rendered = new Map<Overlay, K8sObject[]>();
const configKeys = new Map<string, string[]>();

beforeAll(async () => {
  for (const overlay of OVERLAYS) rendered.set(overlay, render(overlayDir(root, overlay)));
  for (const image of SERVICES) {
    // Imported by path at run time (not typechecked from here): the service's own config specs.
    const module = (await import(pathToFileURL(join(root, "services", image.name, "src", "config.ts")).href)) as { configSpecs: Record<string, unknown> };
    configKeys.set(image.name, Object.keys(module.configSpecs));
  }
});

function containersOf(deployment: Deployment): Container[] {
  return [...(deployment.spec.template.spec.initContainers ?? []), ...deployment.spec.template.spec.containers];
}

/** Names of the variables a container gets, with where each comes from. */
function envOf(objects: K8sObject[], container: Container): Map<string, { from: "configmap" | "secret" | "value"; value?: string }> {
  const env = new Map<string, { from: "configmap" | "secret" | "value"; value?: string }>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const configMap = find<K8sObject & { data?: Record<string, string> }>(objects, "ConfigMap", source.configMapRef.name);
      for (const [key, value] of Object.entries(configMap.data ?? {})) env.set(key, { from: "configmap", value });
    }
    if (source.secretRef) throw new Error(`${container.name}: envFrom a whole Secret hides which keys it needs`);
  }
  for (const variable of container.env ?? []) {
    if (variable.valueFrom?.secretKeyRef) env.set(variable.name, { from: "secret" });
    else if (variable.valueFrom?.configMapKeyRef) env.set(variable.name, { from: "configmap" });
    else env.set(variable.name, { from: "value", value: variable.value });
  }
  return env;
}

describe.each(OVERLAYS.map((overlay) => [overlay]))("overlay %s", (overlayName) => {
  const overlay = overlayName as Overlay;
  const objects = () => rendered.get(overlay)!;

  it("renders objects that are valid against the Kubernetes schemas", async () => {
    expect(objects().length).toBeGreaterThan(30);
    const invalid: string[] = [];
    for (const object of objects()) {
      await validateObject(object).catch((error: Error) => invalid.push(`${object.kind}/${object.metadata.name}: ${error.message}`));
    }
    expect(invalid).toEqual([]);
  });

  it("puts everything in its namespace, labelled app.kubernetes.io/*, with no Secret inlined", () => {
    for (const object of objects()) {
      const where = `${object.kind}/${object.metadata.name}`;
      if (object.kind === "Namespace") {
        expect(object.metadata.name).toBe(NAMESPACE[overlay]);
        expect(object.metadata.labels?.["pod-security.kubernetes.io/enforce"], where).toBe("restricted");
      } else {
        expect(object.metadata.namespace, where).toBe(NAMESPACE[overlay]);
      }
      expect(object.metadata.labels?.["app.kubernetes.io/part-of"], where).toBe("player-support");
      expect(object.metadata.labels?.["app.kubernetes.io/instance"], where).toBe(NAMESPACE[overlay]);
      expect(object.kind, `${where}: secrets are created outside the manifests`).not.toBe("Secret");
    }
    for (const kind of ["Deployment", "Service", "ServiceAccount", "ConfigMap", "PodDisruptionBudget", "HorizontalPodAutoscaler", "Ingress"]) {
      for (const object of byKind(objects(), kind)) {
        expect(object.metadata.labels?.["app.kubernetes.io/name"], `${kind}/${object.metadata.name}`).toBeTruthy();
        expect(object.metadata.labels?.["app.kubernetes.io/managed-by"], `${kind}/${object.metadata.name}`).toBe("kustomize");
      }
    }
  });

  it.each(SERVICES.map((image) => [image.name, image]))("has the Deployment, Service, ServiceAccount, ConfigMap, PDB and HPA of %s, wired together", (name, imageSpec) => {
    const image = imageSpec as ServiceImage;
    const deployment = find<Deployment>(objects(), "Deployment", name as string);
    const pod = deployment.spec.template;
    expect(pod.metadata.labels["app.kubernetes.io/name"]).toBe(name);
    expect(pod.metadata.labels["app.kubernetes.io/part-of"]).toBe("player-support");
    expect(selects(deployment.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    // The autoscaler owns the replica count.
    expect(deployment.spec.replicas).toBeUndefined();

    const serviceAccount = find<K8sObject & { automountServiceAccountToken?: boolean }>(objects(), "ServiceAccount", name as string);
    expect(pod.spec.serviceAccountName).toBe(serviceAccount.metadata.name);
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(serviceAccount.automountServiceAccountToken).toBe(false);

    const app = pod.spec.containers[0]!;
    expect(app.name).toBe(name);
    const service = find<K8sObject & { spec: { selector: Record<string, string>; clusterIP?: string; ports: { name: string; port: number; targetPort: string | number }[] } }>(
      objects(),
      "Service",
      name as string,
    );
    expect(selects(service.spec.selector, pod.metadata.labels)).toBe(true);
    // Internal services are headless: their name resolves to every ready pod, which the clients
    // balance over. The gateway's stays a virtual IP behind the Ingress.
    expect(service.spec.clusterIP).toBe(name === "gateway" ? undefined : "None");
    const env = envOf(objects(), app);
    for (const port of service.spec.ports) {
      const target = app.ports?.find((p) => p.name === port.targetPort || p.containerPort === port.targetPort);
      // The service's own port; email also takes players' answers by SMTP on its listener's port.
      const expected = port.name === "smtp" && name === "email" ? Number(env.get("EMAIL_SMTP_PORT")?.value) : image.port;
      expect(target?.containerPort, `Service ${name} port ${port.name}`).toBe(expected);
    }
    expect(env.get("PORT")?.value).toBe(String(image.port));

    const pdb = find<K8sObject & { spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable?: number; minAvailable?: number } }>(
      objects(),
      "PodDisruptionBudget",
      name as string,
    );
    expect(selects(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    const hpa = find<K8sObject & { spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number } }>(
      objects(),
      "HorizontalPodAutoscaler",
      name as string,
    );
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
    // A drain can always proceed: a PDB never demands every pod.
    if (pdb.spec.minAvailable !== undefined) expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    else expect(pdb.spec.maxUnavailable).toBeGreaterThanOrEqual(1);
    if (overlay === "production") expect(hpa.spec.minReplicas, `${name} keeps serving through a disruption`).toBeGreaterThanOrEqual(2);
  });

  it("runs every container hardened: non-root, read-only root filesystem, no capabilities, no privilege escalation, RuntimeDefault seccomp", () => {
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot, deployment.metadata.name).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type, deployment.metadata.name).toBe("RuntimeDefault");
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.hostPID ?? false).toBe(false);
      expect(pod.hostIPC ?? false).toBe(false);
      for (const container of containersOf(deployment)) {
        const where = `${deployment.metadata.name}/${container.name}`;
        const context = container.securityContext;
        expect(context?.runAsNonRoot, where).toBe(true);
        expect(context?.runAsUser, where).toBeGreaterThan(0);
        expect(context?.readOnlyRootFilesystem, where).toBe(true);
        expect(context?.allowPrivilegeEscalation, where).toBe(false);
        expect(context?.privileged ?? false, where).toBe(false);
        expect(context?.capabilities?.drop, where).toContain("ALL");
        expect(context?.capabilities?.add ?? [], where).toEqual([]);
        expect(context?.seccompProfile?.type, where).toBe("RuntimeDefault");
      }
    }
  });

  it("gives every container cpu and memory requests and limits, requests within limits", () => {
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      for (const container of containersOf(deployment)) {
        const where = `${deployment.metadata.name}/${container.name}`;
        const { requests, limits } = container.resources ?? {};
        for (const [resource, parse] of [
          ["cpu", cpuMillis],
          ["memory", memoryBytes],
        ] as const) {
          const request = parse(requests?.[resource]);
          const limit = parse(limits?.[resource]);
          expect(request, `${where} requests.${resource}`).toBeGreaterThan(0);
          expect(limit, `${where} limits.${resource}`).toBeGreaterThan(0);
          expect(request, `${where} ${resource} request <= limit`).toBeLessThanOrEqual(limit);
        }
      }
    }
  });

  it.each(INTERNAL.map((image) => [image.name, image]))("probes %s over grpc.health.v1 on its port (startup, readiness, liveness)", (name, imageSpec) => {
    const image = imageSpec as ServiceImage;
    const app = find<Deployment>(objects(), "Deployment", name as string).spec.template.spec.containers[0]!;
    for (const probe of [app.startupProbe, app.readinessProbe, app.livenessProbe]) {
      expect(probe?.grpc?.port).toBe(image.port);
      // "" is the overall status, which follows the service's readiness.
      expect(probe?.grpc?.service ?? "").toBe("");
      expect(probe?.httpGet ?? probe?.tcpSocket ?? probe?.exec).toBeUndefined();
    }
    // Liveness restarts only after a sustained failure, never sooner than readiness reacts.
    const liveness = app.livenessProbe!;
    const readiness = app.readinessProbe!;
    expect((liveness.periodSeconds ?? 10) * (liveness.failureThreshold ?? 3)).toBeGreaterThanOrEqual(60);
    expect((readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3)).toBeLessThan((liveness.periodSeconds ?? 10) * (liveness.failureThreshold ?? 3));
  });

  it("probes the gateway over HTTP: readiness GET /readyz, liveness GET /healthz (both its own state only), startup by TCP", () => {
    const app = find<Deployment>(objects(), "Deployment", "gateway").spec.template.spec.containers[0]!;
    const httpPort = app.ports?.find((port) => port.name === "http");
    expect(httpPort?.containerPort).toBe(8080);
    expect(app.readinessProbe?.httpGet).toMatchObject({ path: "/readyz", port: "http" });
    expect(app.livenessProbe?.httpGet).toMatchObject({ path: "/healthz", port: "http" });
    expect(app.startupProbe?.tcpSocket?.port).toBe("http");
  });

  it.each(INTERNAL.map((image) => [image.name]))("migrates %s in an init container as the schema owner, the service running as its data-only role", (name) => {
    const pod = find<Deployment>(objects(), "Deployment", name as string).spec.template.spec;
    const [migrate, ...otherInits] = pod.initContainers ?? [];
    expect(otherInits).toEqual([]);
    expect(migrate?.name).toBe("migrate");
    expect(migrate?.command).toEqual(migrateCommand());
    expect(migrate?.image).toBe(pod.containers[0]!.image);
    const migrateUrl = migrate?.env?.find((variable) => variable.name === "DATABASE_URL");
    expect(migrateUrl?.valueFrom?.secretKeyRef).toEqual({ name: `${name}-db`, key: "MIGRATION_DATABASE_URL" });
    const appUrl = pod.containers[0]!.env?.find((variable) => variable.name === "DATABASE_URL");
    expect(appUrl?.valueFrom?.secretKeyRef).toEqual({ name: `${name}-db`, key: "DATABASE_URL" });
    expect(pod.containers[0]!.command).toBeUndefined(); // the image's CMD: node src/main.ts
  });

  it("references secrets only: no secret-looking variable has a literal value or sits in a ConfigMap", () => {
    for (const configMap of byKind<K8sObject & { data?: Record<string, string> }>(objects(), "ConfigMap")) {
      for (const [key, value] of Object.entries(configMap.data ?? {})) {
        expect(SENSITIVE.test(key), `ConfigMap ${configMap.metadata.name} holds ${key}`).toBe(false);
        expect(value, `ConfigMap ${configMap.metadata.name} ${key} carries credentials`).not.toMatch(/:\/\/[^/\s]*:[^/\s]*@/);
      }
    }
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      for (const container of containersOf(deployment)) {
        for (const variable of container.env ?? []) {
          if (SENSITIVE.test(variable.name)) expect(variable.valueFrom?.secretKeyRef, `${deployment.metadata.name}/${container.name} ${variable.name}`).toBeDefined();
        }
      }
    }
  });

  it.each(SERVICES.map((image) => [image.name]))("sets every variable %s needs in a cluster, and only variables it reads", (name) => {
    const app = find<Deployment>(objects(), "Deployment", name as string).spec.template.spec.containers[0]!;
    const env = envOf(objects(), app);
    const known = new Set(configKeys.get(name as string)!);
    expect([...env.keys()].filter((key) => !known.has(key)), "variables the service does not read").toEqual([]);
    for (const key of REQUIRED_ENV[name as string]!) expect(env.has(key), `${name} needs ${key}`).toBe(true);
    for (const [key, source] of env) {
      if (SENSITIVE.test(key)) expect(source.from, `${name} ${key}`).toBe("secret");
    }
    // Callers reach the other services by their Service names and ports.
    for (const [key, value] of env) {
      const target = /^(CONTENT|TICKETS|MEDIA|PLAYERS|WEBHOOKS|EMAIL)_URL$/.exec(key)?.[1]?.toLowerCase();
      if (target) expect(value.value).toBe(`http://${target}:${SERVICES.find((s) => s.name === target)!.port}`);
    }
  });

  it("gives every process its own identity key from its own Secret, every service the callers' trust, and listens on every interface", () => {
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      const name = deployment.metadata.name;
      const app = deployment.spec.template.spec.containers[0]!;
      const variable = (key: string) => app.env?.find((entry) => entry.name === key);
      expect(variable("SERVICE_IDENTITY_KEY")?.valueFrom?.secretKeyRef, `${name} SERVICE_IDENTITY_KEY`).toEqual({ name: `${name}-identity`, key: "SERVICE_IDENTITY_KEY" });
      const trust = variable("SERVICE_IDENTITY_TRUST")?.valueFrom?.configMapKeyRef;
      // The gateway serves no RPC: it signs its calls and needs no trust.
      if (name === "gateway") expect(trust, "gateway SERVICE_IDENTITY_TRUST").toBeUndefined();
      else expect(trust, `${name} SERVICE_IDENTITY_TRUST`).toEqual({ name: "service-identity-trust", key: "SERVICE_IDENTITY_TRUST" });
      // Neither may be optional: a pod without them must not start (and would not, in production).
      expect(JSON.stringify(app.env), `${name}: optional identity`).not.toMatch(/identity[^}]*"optional":true/);
      const env = envOf(objects(), app);
      expect(env.get("HOST")?.value, `${name} HOST`).toBe("0.0.0.0");
      expect(env.get("METRICS_HOST")?.value, `${name} METRICS_HOST`).toBe("0.0.0.0");
    }
    expect(byKind<Deployment>(objects(), "Deployment").map((deployment) => deployment.metadata.name).sort()).toEqual(SERVICES.map((image) => image.name).sort());
  });

  it("keeps the image's NODE_ENV=production, which makes CURSOR_SECRET and WEBHOOK_SECRETS_KEY required, and never loosens webhook targets", () => {
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      for (const container of containersOf(deployment)) {
        const env = envOf(objects(), container);
        const nodeEnv = env.get("NODE_ENV");
        if (nodeEnv) expect(nodeEnv.value, `${deployment.metadata.name}/${container.name} NODE_ENV`).toBe("production");
        // The webhooks service refuses to start with these in production; none is set at all.
        for (const loosening of ["WEBHOOK_ALLOW_HTTP", "WEBHOOK_ALLOW_PRIVATE_TARGETS"]) {
          expect(env.has(loosening), `${deployment.metadata.name}/${container.name} ${loosening}`).toBe(false);
        }
      }
    }
    const tickets = find<Deployment>(objects(), "Deployment", "tickets").spec.template.spec.containers[0]!;
    expect(tickets.env?.find((variable) => variable.name === "CURSOR_SECRET")?.valueFrom?.secretKeyRef).toEqual({ name: "tickets-secrets", key: "CURSOR_SECRET" });
  });

  it("pins every container image to this overlay's registry and an explicit tag", () => {
    for (const deployment of byKind<Deployment>(objects(), "Deployment")) {
      for (const container of containersOf(deployment)) {
        const match = /^(.+\/)?player-support\/([a-z]+):([\w.-]+)$/.exec(container.image ?? "");
        expect(match, `${deployment.metadata.name}/${container.name} image ${container.image}`).not.toBeNull();
        expect(match![2]).toBe(deployment.metadata.name);
        expect(match![3]).not.toBe("latest");
        expect(container.imagePullPolicy).toBeDefined();
      }
    }
  });

  it("exposes the gateway (API and web support hosts) through the Ingress, with TLS", () => {
    const ingress = find<K8sObject & {
      spec: {
        tls: { hosts: string[]; secretName: string }[];
        rules: { host: string; http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[];
      };
    }>(objects(), "Ingress", "support");
    expect(ingress.spec.rules.map((rule) => rule.host.split(".")[0])).toEqual(["api", "help"]);
    for (const rule of ingress.spec.rules) {
      expect(ingress.spec.tls[0]!.hosts).toContain(rule.host);
      for (const path of rule.http.paths) expect(path.backend.service).toEqual({ name: "gateway", port: { name: "http" } });
    }
  });

  it("sends sessions to the page the gateway serves: WEB_SUPPORT_URL is https://<help host>/support/, which the Ingress routes to the gateway", () => {
    const ingress = find<K8sObject & {
      spec: { rules: { host: string; http: { paths: { path: string; pathType: string; backend: { service: { name: string } } }[] } }[] };
    }>(objects(), "Ingress", "support");
    const gateway = find<Deployment>(objects(), "Deployment", "gateway");
    const url = new URL(envOf(objects(), gateway.spec.template.spec.containers.find((c) => c.name === "gateway")!).get("WEB_SUPPORT_URL")!.value!);
    expect(url.protocol).toBe("https:");
    expect(url.pathname).toBe("/support/");
    const help = ingress.spec.rules.find((rule) => rule.host === url.host);
    expect(help, `an Ingress rule for ${url.host}`).toBeDefined();
    // The longest Prefix path that covers /support/ (as ingress-nginx picks) goes to the gateway.
    const covering = help!.http.paths
      .filter((p) => p.pathType === "Prefix" && (p.path === "/" || url.pathname === p.path || url.pathname.startsWith(`${p.path.replace(/\/$/, "")}/`)))
      .sort((a, b) => b.path.length - a.path.length);
    expect(covering[0]?.backend.service.name).toBe("gateway");
  });

  it("includes the network-policies component (default deny)", () => {
    const deny = find<K8sObject & { spec: { podSelector: object; policyTypes: string[] } }>(objects(), "NetworkPolicy", "default-deny-all");
    expect(deny.spec.podSelector).toEqual({});
    expect(deny.spec.policyTypes.sort()).toEqual(["Egress", "Ingress"]);
  });
});

describe("overlays differ where environments differ", () => {
  it("production runs more replicas with more resources than dev", () => {
    const hpa = (overlay: Overlay, name: string) => find<K8sObject & { spec: { minReplicas: number; maxReplicas: number } }>(rendered.get(overlay)!, "HorizontalPodAutoscaler", name).spec;
    const app = (overlay: Overlay, name: string) => find<Deployment>(rendered.get(overlay)!, "Deployment", name).spec.template.spec.containers[0]!;
    for (const image of SERVICES) {
      expect(hpa("production", image.name).minReplicas).toBeGreaterThan(hpa("dev", image.name).minReplicas);
      expect(hpa("production", image.name).maxReplicas).toBeGreaterThan(hpa("dev", image.name).maxReplicas);
      expect(memoryBytes(app("production", image.name).resources?.limits?.memory)).toBeGreaterThan(memoryBytes(app("dev", image.name).resources?.limits?.memory));
    }
    expect(hpa("production", "gateway").minReplicas).toBeGreaterThanOrEqual(3);
  });
});
