// Vitest settings shared by every package: the console reporter plus a JSON report written to
// <repo>/.ci/out/<package>.json, which .ci/summarize.ts adds up into CI's closing line.
// A package's vitest.config.ts: `export default mergeConfig(shared, defineConfig({ test: {...} }))`.
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { defineConfig } from "vitest/config";

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

// pnpm sets npm_package_name for package scripts; fall back to the folder name.
const packageName = (process.env.npm_package_name ?? basename(process.cwd())).replace(/^@[^/]+\//, "");

export default defineConfig({
  test: {
    reporters: ["default", "json"],
    outputFile: { json: join(findRepoRoot(process.cwd()), ".ci", "out", `${packageName}.json`) },
  },
});
