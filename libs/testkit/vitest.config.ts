import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";
import { testInfraGlobalSetup } from "./src/vitest.ts";

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      include: ["src/**/*.test.ts"],
      // Resolve Postgres/NATS/S3 once for the whole run (the way other packages should).
      globalSetup: [testInfraGlobalSetup],
      // Starting private Postgres/NATS from binaries takes a few seconds on 2 cores.
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  }),
);
