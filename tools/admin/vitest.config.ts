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
      // Each test runs the CLI as child processes, several times (a Node start each): on a
      // loaded two-core machine one took over 30 s where it takes 3-8 s on a quiet one.
      testTimeout: 120_000,
      hookTimeout: 60_000,
    },
  }),
);
