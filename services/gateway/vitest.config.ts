import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import { testInfraGlobalSetup } from "@support/testkit/vitest";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineConfig({
    resolve: {
      // The typed client from its source, as in tsconfig.json (not a package dependency: the
      // client's own tests depend on the gateway).
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
