// The sample of running Postgres with CloudNativePG (overlays/production-cnpg): it renders, its
// Namespace is valid, and its Cluster and ScheduledBackup use only fields of the operator's
// postgresql.cnpg.io/v1 API (a shape of the fields used, written from the operator's CRD
// reference: no package ships its schema), with 3 instances spread over zones, backups, and no
// credential inlined.
import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { repoRoot } from "../scripts/repo.ts";
import { render, type K8sObject } from "./support/kustomize.ts";
import { find, validateObject } from "./support/manifests.ts";

const root = repoRoot();
const OVERLAY = join(root, "deploy", "k8s", "overlays", "production-cnpg");

/** A field's type: a primitive, a nested shape, or a list of one shape. */
type Shape = "string" | "number" | "boolean" | { [field: string]: Shape } | [Shape];

const SECRET_KEY: Shape = { name: "string", key: "string" };
const CLUSTER_SPEC: Shape = {
  instances: "number",
  minSyncReplicas: "number",
  maxSyncReplicas: "number",
  imageName: "string",
  primaryUpdateStrategy: "string",
  enableSuperuserAccess: "boolean",
  postgresql: { parameters: { "*": "string" } },
  bootstrap: { initdb: { database: "string", owner: "string" } },
  storage: { size: "string", storageClass: "string" },
  walStorage: { size: "string", storageClass: "string" },
  resources: { requests: { cpu: "string", memory: "string" }, limits: { cpu: "string", memory: "string" } },
  affinity: { enablePodAntiAffinity: "boolean", topologyKey: "string" },
  monitoring: { enablePodMonitor: "boolean" },
  backup: {
    retentionPolicy: "string",
    barmanObjectStore: {
      destinationPath: "string",
      endpointURL: "string",
      s3Credentials: { accessKeyId: SECRET_KEY, secretAccessKey: SECRET_KEY },
      wal: { compression: "string" },
      data: { compression: "string" },
    },
  },
};
const SCHEDULED_BACKUP_SPEC: Shape = { schedule: "string", backupOwnerReference: "string", cluster: { name: "string" } };

function shapeProblems(value: unknown, shape: Shape, path: string): string[] {
  if (Array.isArray(shape)) {
    return Array.isArray(value) ? value.flatMap((item, index) => shapeProblems(item, shape[0], `${path}[${index}]`)) : [`${path}: not a list`];
  }
  if (typeof shape === "string") return typeof value === shape ? [] : [`${path}: ${JSON.stringify(value)} is not a ${shape}`];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: not an object`];
  return Object.entries(value).flatMap(([key, field]) => {
    const fieldShape = shape[key] ?? shape["*"];
    return fieldShape ? shapeProblems(field, fieldShape, `${path}.${key}`) : [`${path}.${key}: not a field of the API`];
  });
}

type Cluster = K8sObject & { spec: Record<string, unknown> & { instances: number; affinity: { enablePodAntiAffinity: boolean }; postgresql: { parameters: Record<string, string> } } };

let objects: K8sObject[];

beforeAll(() => {
  objects = render(OVERLAY);
});

describe("overlay production-cnpg (Postgres by CloudNativePG)", () => {
  it("renders a Namespace, a Cluster and a daily ScheduledBackup in support-postgres", async () => {
    expect(objects.map((object) => `${object.apiVersion} ${object.kind}/${object.metadata.name}`).sort()).toEqual([
      "postgresql.cnpg.io/v1 Cluster/support-postgres",
      "postgresql.cnpg.io/v1 ScheduledBackup/support-postgres-daily",
      "v1 Namespace/support-postgres",
    ]);
    await validateObject(find(objects, "Namespace", "support-postgres"));
    for (const object of objects.filter((candidate) => candidate.kind !== "Namespace")) expect(object.metadata.namespace).toBe("support-postgres");
  });

  it("uses only fields of the CloudNativePG API, with their types (and the check refuses a typo)", () => {
    const cluster = find<Cluster>(objects, "Cluster", "support-postgres");
    expect(shapeProblems(cluster.spec, CLUSTER_SPEC, "Cluster.spec")).toEqual([]);
    expect(shapeProblems(find<Cluster>(objects, "ScheduledBackup", "support-postgres-daily").spec, SCHEDULED_BACKUP_SPEC, "ScheduledBackup.spec")).toEqual([]);
    expect(shapeProblems({ ...cluster.spec, instance: 3 }, CLUSTER_SPEC, "Cluster.spec")).toEqual(["Cluster.spec.instance: not a field of the API"]);
    expect(shapeProblems({ ...cluster.spec, instances: "3" }, CLUSTER_SPEC, "Cluster.spec")).toEqual(['Cluster.spec.instances: "3" is not a number']);
  });

  it("runs 3 instances apart, with room for the platform's connections, backed up, with credentials only by reference", () => {
    const cluster = find<Cluster>(objects, "Cluster", "support-postgres");
    expect(cluster.spec.instances).toBe(3);
    // Synchronous to one replica: what the fault suite's failover scenario proves loses nothing.
    expect(cluster.spec).toMatchObject({ minSyncReplicas: 1, maxSyncReplicas: 1 });
    expect(cluster.spec.affinity.enablePodAntiAffinity).toBe(true);
    // deploy/README.md, "Scaling": up to about 400 connections at the production maxima.
    expect(Number(cluster.spec.postgresql.parameters.max_connections)).toBeGreaterThanOrEqual(400);
    expect(find(objects, "ScheduledBackup", "support-postgres-daily")).toMatchObject({ spec: { cluster: { name: "support-postgres" } } });
    expect(JSON.stringify(cluster)).not.toMatch(/password|:\/\/[^/\s]*:[^/\s]*@/i);
  });

  it("is where deploy/README.md tells the services' Secrets to point", () => {
    const readme = readFileSync(join(root, "deploy", "README.md"), "utf8");
    expect(readme).toContain("support-postgres-rw.support-postgres.svc.cluster.local:5432");
  });
});
