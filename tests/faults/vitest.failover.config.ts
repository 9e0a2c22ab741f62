// The failover scenarios alone (`pnpm test:failover`), with their own JSON report: `pnpm test`
// runs them beside other packages (scripts/test-packages.sh), not in this package's last lane.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";
import { FAILOVER_FILES } from "./vitest.config.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: FAILOVER_FILES,
      fileParallelism: false,
      testTimeout: 120_000,
      hookTimeout: 600_000,
      outputFile: { json: join(root, ".ci", "out", "fault-tests-failover.json") },
    },
  }),
);
