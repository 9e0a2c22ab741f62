// Vitest settings shared by every package: the console reporter plus a JSON report written to
// <repo>/.ci/out/<package>.json, which .ci/summarize.ts adds up into CI's closing line.
// A package's vitest.config.ts: `export default mergeConfig(shared, defineConfig({ test: {...} }))`.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
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

// Test files wait on Postgres, NATS, S3 and their own in-process services far more than they
// compute: vitest's default of one file per core but one (a single file at a time on two cores)
// leaves the machine half idle. Two at a time on two cores halved the gateway's run (200 s ->
// 107 s); four were slower again (131 s). Packages whose files must not overlap (image builds,
// a browser, private infrastructure) set `fileParallelism: false`. TEST_MAX_WORKERS overrides.
const maxWorkers = Number(process.env.TEST_MAX_WORKERS) || Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    maxWorkers,
    // A test file's imports (the services, the SDKs, the generated protos) cost more than most
    // files' tests: with isolation every file re-imported them in a fresh process (the gateway's
    // 50 files spent 100 s importing). Each worker now imports a module once and runs its files
    // one after another. Every file still makes its own database, NATS prefix and servers, and
    // no test mocks modules or leaves process state behind, so the files stay independent.
    isolate: false,
    experimental: {
      // Node 24 runs this repository's TypeScript itself (erasable syntax only, as in production:
      // `node src/main.ts`), without Vite's transform of every file: a third less CPU again.
      // Packages with JSX (apps/web-support) turn it back on.
      viteModuleRunner: false,
    },
    reporters: ["default", "json"],
    outputFile: { json: join(findRepoRoot(process.cwd()), ".ci", "out", `${packageName}.json`) },
  },
});
