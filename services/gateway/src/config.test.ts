// The gateway's listeners default to loopback like every process: reachable from the network
// only when HOST / METRICS_HOST say so (the Kubernetes manifests set 0.0.0.0).
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "./config.ts";

describe("gateway config", () => {
  it("binds the public and metrics ports to 127.0.0.1 by default", () => {
    const config = loadGatewayConfig({});
    expect(config.HOST).toBe("127.0.0.1");
    expect(config.METRICS_HOST).toBe("127.0.0.1");
  });
});
