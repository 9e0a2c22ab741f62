// deploy/README.md documents every variable the services read and every Secret the manifests
// reference, so that an operator never has to read the code to configure a deployment.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SERVICES } from "../image/spec.ts";
import { repoRoot } from "../scripts/repo.ts";
import { OVERLAYS, overlayDir, render } from "./support/kustomize.ts";
import type { Deployment } from "./support/manifests.ts";

const root = repoRoot();
const readme = readFileSync(join(root, "deploy", "README.md"), "utf8");

describe("deploy/README.md", () => {
  it.each(SERVICES.map((image) => [image.name]))("documents every variable %s reads", async (name) => {
    const module = (await import(pathToFileURL(join(root, "services", name as string, "src", "config.ts")).href)) as { configSpecs: Record<string, unknown> };
    const missing = Object.keys(module.configSpecs).filter((key) => !readme.includes(`\`${key}\``));
    expect(missing).toEqual([]);
  });

  it("documents every Secret and key the manifests reference", () => {
    for (const overlay of OVERLAYS) {
      const objects = render(overlayDir(root, overlay));
      for (const deployment of objects.filter((object): object is Deployment => object.kind === "Deployment")) {
        const pod = deployment.spec.template.spec;
        for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
          for (const variable of container.env ?? []) {
            const ref = variable.valueFrom?.secretKeyRef;
            if (!ref) continue;
            const secretName = ref.name
              .replace(/^(content|tickets|media|players|webhooks)-db$/, "<service>-db")
              .replace(/^(gateway|content|tickets|media|players|webhooks)-identity$/, "<service>-identity");
            expect(readme.includes(`\`${ref.name}\``) || readme.includes(`\`${secretName}\``), `Secret ${ref.name}`).toBe(true);
            expect(readme, `key ${ref.key} of ${ref.name}`).toContain(`\`${ref.key}\``);
          }
        }
      }
      for (const ingress of objects.filter((object) => object.kind === "Ingress")) {
        const tls = (ingress as unknown as { spec: { tls: { secretName: string }[] } }).spec.tls;
        for (const entry of tls) expect(readme, `TLS secret ${entry.secretName}`).toContain(`\`${entry.secretName}\``);
      }
    }
  });
});
