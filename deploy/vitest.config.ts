import { testInfraGlobalSetup } from "@support/testkit/vitest";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.ts";

// The image builds and service starts share two cores: test files run one at a time.
export default mergeConfig(
  shared,
  defineConfig({ test: { globalSetup: [testInfraGlobalSetup], fileParallelism: false, testTimeout: 60_000, hookTimeout: 240_000 } }),
);
