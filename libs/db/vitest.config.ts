import { testInfraGlobalSetup } from "@support/testkit/vitest";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.ts";

// Each test file in a process of its own: importing this package replaces pg's global type
// parsers, and timestamps.test.ts compares the replacement with pg's own parser.
export default mergeConfig(shared, defineConfig({ test: { globalSetup: [testInfraGlobalSetup], isolate: true, testTimeout: 60_000, hookTimeout: 60_000 } }));
