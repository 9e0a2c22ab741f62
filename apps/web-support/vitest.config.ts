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
      // What a page shows after a request (a sign-in's password hash, an action, a live update)
      // takes longer than expect.poll's default second on a busy machine; a poll ends as soon as
      // it holds, so a longer limit costs nothing when the machine is idle.
      expect: { poll: { timeout: 10_000 } },
      hookTimeout: 900_000,
      // One browser and one backend stack at a time: the machine is small.
      fileParallelism: false,
      // The views are JSX (.tsx), which Node cannot run itself: Vite's module runner transforms them.
      experimental: { viteModuleRunner: true },
    },
  }),
);
