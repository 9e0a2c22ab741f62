import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

/**
 * The failover scenarios (a NATS cluster, a Postgres standby): `pnpm test:failover` runs them
 * (vitest.failover.config.ts), beside other packages in `pnpm test` (scripts/test-packages.sh),
 * where this package's other files run last and alone.
 */
export const FAILOVER_FILES = ["test/nats-cluster.test.ts", "test/postgres-failover.test.ts"];

// Each file starts a whole stack of real processes (its own Postgres, NATS, S3 and the five
// services): one file at a time, so two stacks never compete for the machine's cores.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: ["test/**/*.test.ts"],
      exclude: FAILOVER_FILES,
      fileParallelism: false,
      testTimeout: 120_000,
      hookTimeout: 180_000,
    },
  }),
);
