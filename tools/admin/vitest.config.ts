import { defineConfig, mergeConfig } from "vitest/config";
import { testInfraGlobalSetup } from "@support/testkit/vitest";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Postgres and NATS are resolved once per run; each test file makes its own database and prefix.
      globalSetup: [testInfraGlobalSetup],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  }),
);
