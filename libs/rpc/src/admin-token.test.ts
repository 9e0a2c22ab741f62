import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { adminTokenGate, adminTokenHeader, connectToAppError, createRpcServer, createServiceClient, isAdminAuthorization, type RpcServer } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

/** A server whose ContentService is guarded like an admin service, with `token` configured. */
function guardedServer(token: string | undefined): RpcServer {
  return createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => true,
    port: 0,
    host: "127.0.0.1",
    routes: (router) =>
      router.service(ContentService, { getCompany: async (request) => ({ company: { id: request.companyId, name: "Acme" } }) }, { requestGate: adminTokenGate(token) }),
  });
}

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return connectToAppError(error).code;
  }
}

describe("admin token", () => {
  const servers: RpcServer[] = [];
  let withToken = "";
  let withoutToken = "";

  beforeAll(async () => {
    const a = guardedServer("s3cret-token");
    const b = guardedServer(undefined);
    servers.push(a, b);
    withToken = `http://127.0.0.1:${(await a.start()).port}`;
    withoutToken = `http://127.0.0.1:${(await b.start()).port}`;
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it("lets a call with the right bearer token through", async () => {
    const client = createServiceClient(ContentService, withToken, { interceptors: [adminTokenHeader("s3cret-token")] });
    expect((await client.getCompany({ companyId: "c1" })).company?.name).toBe("Acme");
  });

  it("refuses a call without the token or with a wrong one as unauthenticated", async () => {
    expect(await codeOf(createServiceClient(ContentService, withToken).getCompany({ companyId: "c1" }))).toBe("unauthenticated");
    const wrong = createServiceClient(ContentService, withToken, { interceptors: [adminTokenHeader("s3cret-tokeN")] });
    expect(await codeOf(wrong.getCompany({ companyId: "c1" }))).toBe("unauthenticated");
  });

  it("refuses every call with permission_denied when no token is configured", async () => {
    const client = createServiceClient(ContentService, withoutToken, { interceptors: [adminTokenHeader("")] });
    expect(await codeOf(client.getCompany({ companyId: "c1" }))).toBe("permission_denied");
    expect(await codeOf(createServiceClient(ContentService, withoutToken).getCompany({ companyId: "c1" }))).toBe("permission_denied");
  });

  it("compares the whole header", () => {
    expect(isAdminAuthorization("Bearer abc", "abc")).toBe(true);
    expect(isAdminAuthorization("bearer abc", "abc")).toBe(false);
    expect(isAdminAuthorization("Bearer abcd", "abc")).toBe(false);
    expect(isAdminAuthorization(null, "abc")).toBe(false);
    expect(isAdminAuthorization("Bearer ", "")).toBe(false);
  });
});
