import path from "node:path";
import { Writable } from "node:stream";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError, validationError } from "@support/errors";
import { createLogger, currentRequestContext, withRequestId, currentRequestId } from "@support/logging";
import { ContentService, health, TicketsService } from "@support/proto";
import { createRpcServer, createServiceClient, toHttpError, connectToAppError } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });
const protoRoot = path.resolve(import.meta.dirname, "../../../proto");

describe("rpc server", () => {
  let ready = true;
  let seenRequestId: string | undefined;
  const server = createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => ready,
    port: 0,
    host: "127.0.0.1",
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request) {
          seenRequestId = currentRequestId();
          if (request.companyId === "missing") throw new AppError("not_found", "company not found");
          if (request.companyId === "bad") throw validationError([{ path: "/companyId", message: "must be a uuid" }]);
          if (request.companyId === "boom") throw new Error("connect ECONNREFUSED 10.0.0.7:5432");
          return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
        },
      }),
  });
  let baseUrl = "";
  let port = 0;

  beforeAll(async () => {
    port = (await server.start()).port;
    baseUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(() => server.stop());

  it("answers a Connect client over h2c and carries the request id", async () => {
    const client = createServiceClient(ContentService, baseUrl);
    const response = await withRequestId("rid-42", () => client.getCompany({ companyId: "c1" }));
    expect(response.company?.name).toBe("Acme");
    expect(seenRequestId).toBe("rid-42");
  });

  it("carries domain errors with their details across the wire", async () => {
    const client = createServiceClient(ContentService, baseUrl);
    const notFound = await client.getCompany({ companyId: "missing" }).catch((e: unknown) => e);
    expect(toHttpError(notFound)).toEqual({ status: 404, headers: {}, body: { code: "not_found", message: "company not found" } });
    const invalid = await client.getCompany({ companyId: "bad" }).catch((e: unknown) => e);
    expect(toHttpError(invalid)).toEqual({
      status: 400,
      headers: {},
      body: {
        code: "invalid_argument",
        message: "Request validation failed",
        details: { type: "VALIDATION_ERROR", issues: [{ path: "/companyId", message: "must be a uuid" }] },
      },
    });
  });

  it("never leaks internal error messages", async () => {
    const client = createServiceClient(ContentService, baseUrl);
    const error = await client.getCompany({ companyId: "boom" }).catch((e: unknown) => e);
    const http = toHttpError(error);
    expect(http.status).toBe(500);
    expect(JSON.stringify(http.body)).not.toContain("10.0.0.7");
  });

  it("maps an unreachable service to 503 unavailable", async () => {
    const client = createServiceClient(ContentService, "http://127.0.0.1:1", { timeoutMs: 2000 });
    const error = await client.getCompany({ companyId: "c1" }).catch((e: unknown) => e);
    expect(connectToAppError(error).code).toBe("unavailable");
    expect(toHttpError(error).status).toBe(503);
  });

  it("serves /healthz and /readyz over plain HTTP/1.1 on the same port", async () => {
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
    ready = false;
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(503);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    ready = true;
    expect((await fetch(`${baseUrl}/nope`)).status).toBe(404);
  });

  it("answers a plain @grpc/grpc-js client (health and a service call)", async () => {
    const definition = protoLoader.loadSync(["grpc/health/v1/health.proto", "content/v1/content.proto"], {
      includeDirs: [protoRoot],
      enums: String,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
      content: { v1: { ContentService: grpc.ServiceClientConstructor } };
    };
    const credentials = grpc.credentials.createInsecure();
    const healthClient = new loaded.grpc.health.v1.Health(`127.0.0.1:${port}`, credentials);
    const check = await new Promise<{ status: string }>((resolve, reject) =>
      healthClient.check!({ service: "" }, (error: Error | null, value: { status: string }) => (error ? reject(error) : resolve(value))),
    );
    expect(check.status).toBe("SERVING");

    const contentClient = new loaded.content.v1.ContentService(`127.0.0.1:${port}`, credentials);
    const company = await new Promise<{ company: { name: string } }>((resolve, reject) =>
      contentClient.getCompany!({ companyId: "c9" }, (error: Error | null, value: { company: { name: string } }) =>
        error ? reject(error) : resolve(value),
      ),
    );
    expect(company.company.name).toBe("Acme");
    const notFound = await new Promise<grpc.ServiceError>((resolve) =>
      contentClient.getCompany!({ companyId: "missing" }, (error: grpc.ServiceError) => resolve(error)),
    );
    expect(notFound.code).toBe(grpc.status.NOT_FOUND);
    healthClient.close();
    contentClient.close();
  });

  it("reports NOT_SERVING to gRPC health checks when not ready", async () => {
    const client = createServiceClient(health.Health, baseUrl);
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    ready = false;
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.NOT_SERVING);
    ready = true;
  });
});

describe("reads declared in the proto", () => {
  const seen: Record<string, boolean | undefined> = {};
  const server = createRpcServer({
    serviceName: "tickets.v1.TicketsService",
    logger: silent,
    isReady: async () => true,
    port: 0,
    host: "127.0.0.1",
    routes: (router) =>
      router.service(TicketsService, {
        async listTickets() {
          seen.listTickets = currentRequestContext()?.readOnly;
          return {};
        },
        async markTicketRead() {
          seen.markTicketRead = currentRequestContext()?.readOnly;
          return {};
        },
      }),
  });
  let baseUrl = "";
  beforeAll(async () => {
    baseUrl = `http://127.0.0.1:${(await server.start()).port}`;
  });
  afterAll(() => server.stop());

  it("runs a method declared NO_SIDE_EFFECTS as a read (its queries may take the pool's read lane), any other not", async () => {
    const client = createServiceClient(TicketsService, baseUrl);
    await client.listTickets({});
    await client.markTicketRead({});
    expect(seen).toEqual({ listTickets: true, markTicketRead: false });
  });
});
