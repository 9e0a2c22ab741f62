// For vitest configs: the absolute path of the testkit's globalSetup module. Importing this
// file loads nothing else (no pg, no NATS client), so configs stay cheap.
import { fileURLToPath } from "node:url";

export const testInfraGlobalSetup: string = fileURLToPath(new URL("./global-setup.ts", import.meta.url));
