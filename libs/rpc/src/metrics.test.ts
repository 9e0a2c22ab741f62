import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@support/errors";
import { createLogger } from "@support/logging";
import { createMetricsRegistry, parseMetricsText } from "@support/metrics";
import { ContentService, health } from "@support/proto";
import { createRpcServer, createServiceClient } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("rpc metrics", () => {
  const serverRegistry = createMetricsRegistry();
  const clientRegistry = createMetricsRegistry();
  const server = createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => true,
    port: 0,
    host: "127.0.0.1",
    registry: serverRegistry,
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request) {
          if (request.companyId === "missing") throw new AppError("not_found", "company not found");
          if (request.companyId === "boom") throw new Error("a bug");
          return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
        },
      }),
  });
  let baseUrl = "";

  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${(await server.start()).port}`;
  });
  afterAll(() => server.stop());

  it("records every call on both sides by service, method and Connect code in snake case", async () => {
    const client = createServiceClient(ContentService, baseUrl, { registry: clientRegistry });
    await client.getCompany({ companyId: "c1" });
    await client.getCompany({ companyId: "c2" });
    await expect(client.getCompany({ companyId: "missing" })).rejects.toMatchObject({ code: "not_found" });
    await expect(client.getCompany({ companyId: "boom" })).rejects.toMatchObject({ code: "internal" });
    await createServiceClient(health.Health, baseUrl, { registry: clientRegistry }).check({ service: "" });
    // A server that does not answer: the client records `unavailable`.
    const nowhere = createServiceClient(ContentService, "http://127.0.0.1:1", { registry: clientRegistry });
    await expect(nowhere.getCompany({ companyId: "c1" })).rejects.toMatchObject({ code: "unavailable" });

    const serverSide = parseMetricsText(await serverRegistry.metrics());
    const clientSide = parseMetricsText(await clientRegistry.metrics());
    const getCompany = { rpc_service: "content.v1.ContentService", rpc_method: "GetCompany" };
    for (const side of [{ name: "rpc_server_duration_seconds", metrics: serverSide }, { name: "rpc_client_duration_seconds", metrics: clientSide }]) {
      expect(side.metrics.value(`${side.name}_count`, { ...getCompany, rpc_code: "ok" })).toBe(2);
      expect(side.metrics.value(`${side.name}_count`, { ...getCompany, rpc_code: "not_found" })).toBe(1);
      expect(side.metrics.value(`${side.name}_count`, { ...getCompany, rpc_code: "internal" })).toBe(1);
      expect(side.metrics.value(`${side.name}_count`, { rpc_service: "grpc.health.v1.Health", rpc_method: "Check", rpc_code: "ok" })).toBe(1);
      expect(side.metrics.value(`${side.name}_sum`, { ...getCompany, rpc_code: "ok" })).toBeGreaterThan(0);
    }
    expect(clientSide.value("rpc_client_duration_seconds_count", { ...getCompany, rpc_code: "unavailable" })).toBe(1);
    expect(serverSide.value("rpc_client_duration_seconds_count")).toBeUndefined();
    expect(clientSide.value("rpc_server_duration_seconds_count")).toBeUndefined();
  });
});
