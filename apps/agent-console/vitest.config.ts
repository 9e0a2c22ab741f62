import { defineConfig, mergeConfig } from "vitest/config";
import { testInfraGlobalSetup } from "@support/testkit/vitest";
import shared from "../../vitest.shared.ts";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Postgres, NATS and S3 resolved once per run for the end-to-end tests.
      globalSetup: [testInfraGlobalSetup],
      testTimeout: 60_000,
      hookTimeout: 900_000,
      // One browser and one backend stack at a time: the machine is small.
      fileParallelism: false,
      // The views are JSX (.tsx), which Node cannot run itself: Vite's module runner transforms them.
      experimental: { viteModuleRunner: true },
    },
  }),
);
