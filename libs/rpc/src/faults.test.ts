// The error contract through real servers and clients: faults of the transport and of a
// handler's dependencies, and deadlines that travel from service to service.
import net from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conflict, isAppError } from "@support/errors";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { createRpcServer, createServiceClient, toHttpError, type RpcServer } from "./index.ts";
import { OUTCOME_UNKNOWN_MESSAGE, UNAVAILABLE_MESSAGE, isDependencyUnavailable } from "./faults.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

function waitForAbort(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** A port that refuses connections: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function start(server: RpcServer): Promise<string> {
  return `http://127.0.0.1:${(await server.start()).port}`;
}

describe("faults at the edge", () => {
  const seen: { backTimeoutMs?: number | undefined; backAborted?: boolean } = {};
  let backUrl = "";

  // "back" is the dependency; "front" calls it like tickets calls content.
  const back = createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => true,
    port: 0,
    host: "127.0.0.1",
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request, context) {
          if (request.companyId === "slow") {
            seen.backTimeoutMs = context.timeoutMs();
            await waitForAbort(context.signal, 5000);
            seen.backAborted = context.signal.aborted;
          }
          if (request.companyId === "conflict") throw conflict("company name taken");
          if (request.companyId === "db-down") {
            // What a driver throws when its server is gone: the socket error itself. The port is
            // closed right before (one closed long before could be taken by another test's server).
            const deadPort = await closedPort();
            await new Promise((_resolve, reject) => net.connect(deadPort, "127.0.0.1").once("error", reject));
          }
          return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
        },
      }),
  });
  let front: RpcServer;
  let frontUrl = "";

  beforeAll(async () => {
    backUrl = await start(back);
    const backClient = createServiceClient(ContentService, backUrl, { timeoutMs: 10_000 });
    front = createRpcServer({
      serviceName: "content.v1.ContentService",
      logger: silent,
      isReady: async () => true,
      port: 0,
      host: "127.0.0.1",
      routes: (router) =>
        router.service(ContentService, {
          async getCompany(request) {
            return backClient.getCompany(request);
          },
        }),
    });
    frontUrl = await start(front);
  });
  afterAll(async () => {
    await front.stop();
    await back.stop();
  });

  it("answers a conflict the service raised as 409, also through a second service", async () => {
    const error = await createServiceClient(ContentService, frontUrl).getCompany({ companyId: "conflict" }).catch((e: unknown) => e);
    expect(isAppError(error)).toBe(true);
    expect(toHttpError(error)).toEqual({ status: 409, headers: {}, body: { code: "conflict", message: "company name taken" } });
  });

  it("answers a stopped service as 503 unavailable with Retry-After", async () => {
    const stopped = createRpcServer({ serviceName: "x", logger: silent, isReady: async () => true, port: 0, host: "127.0.0.1", routes: () => {} });
    const url = await start(stopped);
    await stopped.stop();
    const error = await createServiceClient(ContentService, url, { timeoutMs: 2000 }).getCompany({ companyId: "c1" }).catch((e: unknown) => e);
    expect(toHttpError(error)).toEqual({ status: 503, headers: { "retry-after": "2" }, body: { code: "unavailable", message: UNAVAILABLE_MESSAGE } });
  });

  it("answers a connection reset mid-call as 503 whose outcome is unknown, without the socket's text", async () => {
    const resetting = net.createServer((socket) => socket.once("data", () => setTimeout(() => socket.resetAndDestroy(), 20)));
    await new Promise<void>((resolve) => resetting.listen(0, "127.0.0.1", resolve));
    const { port } = resetting.address() as net.AddressInfo;
    try {
      const error = await createServiceClient(ContentService, `http://127.0.0.1:${port}`).getCompany({ companyId: "c1" }).catch((e: unknown) => e);
      const http = toHttpError(error);
      expect(http).toEqual({ status: 503, headers: { "retry-after": "2" }, body: { code: "unavailable", message: OUTCOME_UNKNOWN_MESSAGE } });
      expect(JSON.stringify(http.body)).not.toContain("ECONNRESET");
    } finally {
      await new Promise((resolve) => resetting.close(resolve));
    }
  });

  it("answers a handler whose dependency refuses connections as 503 without the address", async () => {
    const error = await createServiceClient(ContentService, backUrl).getCompany({ companyId: "db-down" }).catch((e: unknown) => e);
    const http = toHttpError(error);
    expect(http.status).toBe(503);
    expect(http.body).toEqual({ code: "unavailable", message: UNAVAILABLE_MESSAGE });
  });

  it("answers a passed deadline as 504 and ends the calls the service made for it", async () => {
    seen.backAborted = undefined;
    const started = Date.now();
    const error = await createServiceClient(ContentService, frontUrl, { timeoutMs: 300 }).getCompany({ companyId: "slow" }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(toHttpError(error).status).toBe(504);
    expect(toHttpError(error).body.code).toBe("deadline_exceeded");
    expect(elapsed).toBeLessThan(2000);
    // The front's own client allows 10 s; the back was given what was left of the 300 ms.
    expect(seen.backTimeoutMs).toBeGreaterThan(0);
    expect(seen.backTimeoutMs).toBeLessThanOrEqual(300);
    await expect.poll(() => seen.backAborted).toBe(true);
  });
});

describe("isDependencyUnavailable", () => {
  it("tells connection losses from other database errors", () => {
    expect(isDependencyUnavailable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isDependencyUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});
