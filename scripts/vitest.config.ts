// The unit tests of the scripts (the bench harness's arithmetic, the service identity keys): `pnpm run test:scripts`.
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../vitest.shared.ts";

export default mergeConfig(shared, defineConfig({ test: { root: import.meta.dirname, include: ["bench/**/*.test.ts", "*.test.ts"] } }));
