import http from "node:http";
import path from "node:path";
import { Writable } from "node:stream";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { connectToAppError, createRpcServer, createServiceClient, type RpcServer } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });
const protoRoot = path.resolve(import.meta.dirname, "../../../proto");
const SLOW_MS = 700;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Call {
  companyId: string;
  startedAt: number;
  /** Whether the handler's signal was aborted when the handler ended, and when it was aborted. */
  abortedAtEnd?: boolean;
  abortedAt?: number;
}

/**
 * A content service whose GetCompany takes SLOW_MS for "slow", runs until its signal is
 * aborted for "hang", ignores its signal for 3 s for "stuck", and answers at once otherwise;
 * every call is recorded.
 */
function startServer(drainTimeoutMs: number, isReady: () => Promise<boolean> = async () => true) {
  const calls: Call[] = [];
  const server = createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady,
    port: 0,
    host: "127.0.0.1",
    drainTimeoutMs,
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request, context) {
          const call: Call = { companyId: request.companyId, startedAt: performance.now() };
          calls.push(call);
          context.signal.addEventListener("abort", () => (call.abortedAt = performance.now()));
          if (request.companyId === "slow") await sleep(SLOW_MS);
          if (request.companyId === "hang") await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          if (request.companyId === "stuck") await sleep(3000);
          call.abortedAtEnd = context.signal.aborted;
          return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
        },
      }),
  });
  return { server, calls };
}

function grpcContentClient(port: number) {
  const definition = protoLoader.loadSync(["content/v1/content.proto"], { includeDirs: [protoRoot], enums: String });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { content: { v1: { ContentService: grpc.ServiceClientConstructor } } };
  return new loaded.content.v1.ContentService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

function grpcGetCompany(client: grpc.Client, companyId: string): Promise<{ error: grpc.ServiceError | null; name?: string }> {
  return new Promise((resolve) =>
    (client as unknown as Record<string, (req: unknown, cb: (e: grpc.ServiceError | null, v?: { company: { name: string } }) => void) => void>).getCompany!(
      { companyId },
      (error, value) => resolve({ error, name: value?.company.name }),
    ),
  );
}

/** One HTTP/1.1 request; resolves with the status, the Connection header and the body. */
function http1(port: number, method: string, urlPath: string, body?: string): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, agent: new http.Agent({ keepAlive: true }), headers: body ? { "content-type": "application/json" } : {} });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function until(condition: () => boolean): Promise<void> {
  await expect.poll(condition, { timeout: 5000, interval: 5 }).toBe(true);
}

describe("rpc server graceful stop", () => {
  let running: RpcServer | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it("lets a Connect call in flight finish with its signal intact, refuses new calls at once, and stops when it is answered", async () => {
    const { server, calls } = startServer(10_000);
    running = server;
    const { port } = await server.start();
    const client = createServiceClient(ContentService, `http://127.0.0.1:${port}`, { timeoutMs: 5000 });
    expect((await client.getCompany({ companyId: "warm-up" })).company?.name).toBe("Acme");

    const slow = client.getCompany({ companyId: "slow" });
    await until(() => calls.some((call) => call.companyId === "slow"));
    const stopAt = performance.now();
    const stopped = server.stop().then(() => performance.now());
    await sleep(50); // the client reads the GOAWAY

    // A new call on the same client: its session refuses new streams, a new connection is
    // refused (the port is closed), so it fails at once instead of waiting for its timeout.
    const refusedAt = performance.now();
    const refused = await client.getCompany({ companyId: "after-stop" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(connectToAppError(refused).code).toBe("unavailable");
    expect(performance.now() - refusedAt).toBeLessThan(1000);
    expect(calls.some((call) => call.companyId === "after-stop")).toBe(false);

    const answer = await slow;
    expect(answer.company?.name).toBe("Acme");
    const slowCall = calls.find((call) => call.companyId === "slow")!;
    expect(slowCall.abortedAtEnd).toBe(false);
    // Resolves once the last call is answered, far from the 10 s drain deadline.
    expect((await stopped) - stopAt).toBeLessThan(SLOW_MS + 1000);
  });

  it("lets a gRPC call in flight finish with OK, and a gRPC call after the signal fails as UNAVAILABLE at once", async () => {
    const { server, calls } = startServer(10_000);
    running = server;
    const { port } = await server.start();
    const client = grpcContentClient(port);
    try {
      expect((await grpcGetCompany(client, "warm-up")).error).toBeNull();
      const slow = grpcGetCompany(client, "slow");
      await until(() => calls.some((call) => call.companyId === "slow"));
      const stopAt = performance.now();
      const stopped = server.stop().then(() => performance.now());
      await sleep(50);

      const refusedAt = performance.now();
      const refused = await grpcGetCompany(client, "after-stop");
      expect(refused.error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(performance.now() - refusedAt).toBeLessThan(1000);

      const answer = await slow;
      expect(answer.error).toBeNull();
      expect(answer.name).toBe("Acme");
      expect(calls.find((call) => call.companyId === "slow")!.abortedAtEnd).toBe(false);
      expect((await stopped) - stopAt).toBeLessThan(SLOW_MS + 1000);
    } finally {
      client.close();
    }
  });

  it("closes idle HTTP/2 connections at once: stop resolves without waiting for the deadline", async () => {
    const { server } = startServer(10_000);
    running = server;
    const { port } = await server.start();
    const client = createServiceClient(ContentService, `http://127.0.0.1:${port}`);
    const grpcClient = grpcContentClient(port);
    try {
      await client.getCompany({ companyId: "c1" });
      expect((await grpcGetCompany(grpcClient, "c1")).error).toBeNull();
      const stopAt = performance.now();
      await server.stop();
      expect(performance.now() - stopAt).toBeLessThan(1000);
    } finally {
      grpcClient.close();
    }
  });

  it("fails readiness from the signal on, and tells HTTP/1.1 clients Connection: close", async () => {
    let readinessDelayMs = 0;
    const { server, calls } = startServer(10_000, async () => {
      await sleep(readinessDelayMs);
      return true;
    });
    running = server;
    const { port } = await server.start();
    expect((await http1(port, "GET", "/readyz")).status).toBe(200);

    // A readiness check and a Connect call over HTTP/1.1, both in progress at the signal.
    readinessDelayMs = 300;
    const readiness = http1(port, "GET", "/readyz");
    const slow = http1(port, "POST", "/content.v1.ContentService/GetCompany", JSON.stringify({ companyId: "slow" }));
    await until(() => calls.some((call) => call.companyId === "slow"));
    const stopped = server.stop();

    const ready = await readiness;
    expect(ready.status).toBe(503);
    expect(ready.connection).toBe("close");
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ company: { name: "Acme" } });
    expect(answer.connection).toBe("close");
    await stopped;
  });

  it("cuts the calls still running at the drain deadline, not before, and stops right after it", async () => {
    const drainTimeoutMs = 600;
    const { server, calls } = startServer(drainTimeoutMs);
    running = server;
    const { port } = await server.start();
    const client = createServiceClient(ContentService, `http://127.0.0.1:${port}`, { timeoutMs: 10_000 });
    const hung = client.getCompany({ companyId: "hang" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // A handler that stops when aborted, and one that ignores its signal (its stream is reset).
    const stuck = client.getCompany({ companyId: "stuck" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await until(() => calls.some((call) => call.companyId === "hang") && calls.some((call) => call.companyId === "stuck"));
    const stopAt = performance.now();
    await server.stop();
    const stoppedAfter = performance.now() - stopAt;
    const call = calls.find((c) => c.companyId === "hang")!;
    expect(call.abortedAt).toBeDefined();
    expect(call.abortedAt! - stopAt).toBeGreaterThanOrEqual(drainTimeoutMs - 5);
    expect(stoppedAfter).toBeLessThan(drainTimeoutMs + 1000);
    // The client learns that the outcome is unknown rather than waiting for its own timeout.
    expect(connectToAppError(await hung).code).toBe("unavailable");
    expect(connectToAppError(await stuck).code).toBe("unavailable");
  });
});
