// What a service binds to and how it treats missing identity keys, straight from an empty
// environment: loopback only, and no start in production without keys.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@support/config";
import { createLogger } from "@support/logging";
import { serviceConfigSpecs } from "./config.ts";
import { createServiceHost } from "./host.ts";

const logger = createLogger({ service: "config-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("service config", () => {
  it("binds the RPC and metrics ports to 127.0.0.1 by default", () => {
    const config = loadConfig(serviceConfigSpecs, {});
    expect(config.HOST).toBe("127.0.0.1");
    expect(config.METRICS_HOST).toBe("127.0.0.1");
    expect(loadConfig(serviceConfigSpecs, { HOST: "0.0.0.0", METRICS_HOST: "0.0.0.0" })).toMatchObject({ HOST: "0.0.0.0", METRICS_HOST: "0.0.0.0" });
  });

  it("refuses to create a service in production without identity keys", () => {
    const config = { ...loadConfig(serviceConfigSpecs, { NODE_ENV: "production" }), PORT: 0 };
    // The host checks the identity before it touches the database or NATS.
    expect(() => createServiceHost({ name: "content", rpcServiceName: "content.v1.ContentService", config, db: {} as never, nc: {} as never, logger, routes: () => {} })).toThrow(
      /SERVICE_IDENTITY_TRUST/,
    );
  });
});
