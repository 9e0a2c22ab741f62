import { defineConfig, mergeConfig } from "vitest/config";
import { testInfraGlobalSetup } from "@support/testkit/vitest";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Postgres, NATS and S3 resolved once per run for the integration tests in test/.
      globalSetup: [testInfraGlobalSetup],
      testTimeout: 30_000,
      hookTimeout: 120_000,
    },
  }),
);
