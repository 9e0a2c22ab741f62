// Each service is deployed and migrated alone: none may need another service's package at run
// time. (Integration tests may start other services in-process: devDependencies are allowed.)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../scripts/repo.ts";

const root = repoRoot();
const servicesDir = join(root, "services");

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const services = readdirSync(servicesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => JSON.parse(readFileSync(join(servicesDir, entry.name, "package.json"), "utf8")) as PackageJson);
const serviceNames = new Set(services.map((pkg) => pkg.name));

describe("service packages", () => {
  it("finds the seven services", () => {
    expect([...serviceNames].sort()).toEqual(["@support/content", "@support/email", "@support/gateway", "@support/media", "@support/players", "@support/tickets", "@support/webhooks"]);
  });

  it.each(services.map((pkg) => [pkg.name, pkg]))("%s depends at run time on no other service", (_name, pkg) => {
    const others = Object.keys((pkg as PackageJson).dependencies ?? {}).filter((dependency) => serviceNames.has(dependency));
    expect(others).toEqual([]);
  });
});
