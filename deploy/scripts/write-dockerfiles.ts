// Writes services/<service>/Dockerfile for every service from deploy/image/spec.ts.
// `--check` only compares and exits 1 when a Dockerfile is out of date.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderDockerfile } from "../image/dockerfile.ts";
import { SERVICES, toolVersions } from "../image/spec.ts";
import { repoRoot } from "./repo.ts";

const check = process.argv.includes("--check");
const root = repoRoot();
const versions = toolVersions(root);
let stale = 0;
for (const image of SERVICES) {
  const path = join(root, "services", image.name, "Dockerfile");
  const wanted = renderDockerfile(image, versions);
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {
    // missing: written below
  }
  if (current === wanted) continue;
  if (check) {
    console.error(`${path} is out of date: run pnpm --filter @support/deploy dockerfiles`);
    stale++;
  } else {
    writeFileSync(path, wanted);
    console.log(`wrote ${path}`);
  }
}
if (stale > 0) process.exit(1);
