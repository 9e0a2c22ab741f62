import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import { testInfraGlobalSetup } from "@support/testkit/vitest";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineConfig({
    resolve: {
      // The typed client (a test dependency) from its source: its package points at a build
      // the workspace does not keep.
      alias: { "@player-support/client": fileURLToPath(new URL("../../clients/typescript/src/index.ts", import.meta.url)) },
    },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Postgres, NATS and S3 resolved once per run for the integration tests in test/.
      globalSetup: [testInfraGlobalSetup],
      testTimeout: 30_000,
      hookTimeout: 120_000,
    },
  }),
);
