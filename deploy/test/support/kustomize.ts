// Renders the kustomize overlays with `kubectl kustomize` (offline). kubectl comes from the
// machine: the node-svc machines ship one; when it is missing and we are root, Debian's
// `kubernetes-client` is installed, as the README says.
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

function onPath(command: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function installKubectl(): void {
  if (process.getuid?.() !== 0) {
    throw new Error("kubectl is missing: install Debian's kubernetes-client (apt-get install -y kubernetes-client) or any kubectl >= 1.21");
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update"], { stdio: "ignore", env });
  const policy = execFileSync("apt-cache", ["policy", "kubernetes-client"], { encoding: "utf8", env });
  if (/Candidate:\s*\(none\)/.test(policy) || !/Candidate:/.test(policy)) {
    throw new Error(`kubectl is missing and apt has no kubernetes-client candidate:\n${policy}`);
  }
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "kubernetes-client"], { stdio: "ignore", env });
}

let kubectlPath: string | undefined;

/** A kubectl able to render our kustomizations (kustomize >= 4: `labels`, `components`). */
export function kubectl(): string {
  if (kubectlPath) return kubectlPath;
  let path = onPath("kubectl");
  if (!path) {
    installKubectl();
    path = onPath("kubectl");
    if (!path) throw new Error("kubernetes-client was installed but kubectl is not on PATH");
  }
  const version = spawnSync(path, ["version", "--client", "-o", "json"], { encoding: "utf8" });
  const kustomize = /"kustomizeVersion":\s*"v(\d+)\./.exec(version.stdout ?? "")?.[1];
  if (!kustomize || Number(kustomize) < 4) {
    throw new Error(
      `${path} embeds no kustomize >= v4 (${(version.stdout || version.stderr).trim().slice(0, 200)}): ` +
        "the manifests use kustomize `labels` and `components` (kubectl >= 1.21). Debian bookworm's " +
        "kubernetes-client is 1.20; use a newer kubectl.",
    );
  }
  kubectlPath = path;
  return path;
}

/** `kubectl kustomize <dir>` parsed into objects. */
export function render(dir: string): K8sObject[] {
  const out = execFileSync(kubectl(), ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(out)
    .map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0];
      return doc.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

export const OVERLAYS = ["dev", "production"] as const;
export type Overlay = (typeof OVERLAYS)[number];

export function overlayDir(root: string, overlay: Overlay): string {
  return join(root, "deploy", "k8s", "overlays", overlay);
}
