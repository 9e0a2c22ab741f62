// Validation of rendered objects against the Kubernetes schemas (kubernetes-models) and small
// readers for the assertions of manifests.test.ts.
import type { K8sObject } from "./kustomize.ts";

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/**
 * The models' module for an apiVersion/kind: `v1/Service`, `apps/v1/Deployment`, ... from
 * kubernetes-models; the Prometheus Operator's kinds (PodMonitor, PrometheusRule) from
 * @kubernetes-models/prometheus-operator, generated from the operator's API types.
 */
function modelModule(apiVersion: string, kind: string): string {
  if (apiVersion.startsWith("monitoring.coreos.com/")) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/** Throws with the schema errors when the object is not a valid object of its kind. */
export async function validateObject(object: K8sObject): Promise<void> {
  let model: ModelClass | undefined;
  try {
    const module = (await import(modelModule(object.apiVersion, object.kind))) as Record<string, ModelClass>;
    model = module[object.kind];
  } catch {
    model = undefined;
  }
  if (!model) throw new Error(`${object.apiVersion} ${object.kind} is not a Kubernetes API kind known to kubernetes-models`);
  new model(object).validate();
}

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  command?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type?: string };
  };
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path?: string; port: number | string };
  tcpSocket?: { port: number | string };
  exec?: unknown;
  periodSeconds?: number;
  failureThreshold?: number;
  timeoutSeconds?: number;
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type?: string } };
  initContainers?: Container[];
  containers: Container[];
  volumes?: { name: string; emptyDir?: unknown }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
}

export interface Deployment extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

export function byKind<T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}

export function find<T extends K8sObject = K8sObject>(objects: K8sObject[], kind: string, name: string): T {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found as T;
}

/** A CPU quantity in millicores ("100m", "1", 2). */
export function cpuMillis(quantity: string | number | undefined): number {
  if (quantity === undefined) return Number.NaN;
  const text = String(quantity);
  return text.endsWith("m") ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

const MEMORY_UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9, "": 1 };

/** A memory quantity in bytes ("128Mi", "1Gi"). */
export function memoryBytes(quantity: string | number | undefined): number {
  if (quantity === undefined) return Number.NaN;
  const match = /^(\d+(?:\.\d+)?)([KMG]i?|)$/.exec(String(quantity));
  return match ? Number(match[1]) * MEMORY_UNITS[match[2]!]! : Number.NaN;
}

/** Does a matchLabels selector select these labels? */
export function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}
