// The circuit breaker and the retry budget around real transports: a refused port, a live
// server, and a counter of the calls that actually went out.
import net from "node:net";
import { Writable } from "node:stream";
import type { Transport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { createBalancedTransport, createResilientTransport, createRpcServer, createServiceClient, type BalancedTransport } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The calls that reach `transport`. */
function counted(transport: Transport): { transport: Transport; calls: () => number } {
  let calls = 0;
  return {
    transport: {
      unary(...args) {
        calls += 1;
        return transport.unary(...args);
      },
      stream(...args) {
        calls += 1;
        return transport.stream(...args);
      },
    },
    calls: () => calls,
  };
}

describe("resilient transport", () => {
  const server = createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => true,
    port: 0,
    host: "127.0.0.1",
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request) {
          return { company: { id: request.companyId, name: "Acme", primaryLanguage: "en" } };
        },
      }),
  });
  let livePort = 0;
  const transports: BalancedTransport[] = [];
  const balanced = (target: string) => {
    const transport = createBalancedTransport(target, { ejectMs: 60_000 });
    transports.push(transport);
    return transport;
  };

  beforeAll(async () => {
    livePort = (await server.start()).port;
  });
  afterAll(async () => {
    for (const transport of transports) transport.close();
    await server.stop();
  });

  it("opens after consecutive refused calls, then fails at once without calling, and closes after a good trial call", async () => {
    const deadPort = await closedPort();
    const inner = counted(balanced(`http://127.0.0.1:${deadPort}`));
    const guarded = createResilientTransport(inner.transport, { breakAfterFailures: 3, halfOpenAfterMs: 600_000, retryBurst: 0 });
    const client = createServiceClient(ContentService, guarded);
    for (let i = 0; i < 3; i += 1) await expect(client.getCompany({ companyId: "c1" })).rejects.toMatchObject({ code: "unavailable" });
    expect(guarded.breakerState()).toBe("open");
    const before = inner.calls();
    for (let i = 0; i < 20; i += 1) {
      await expect(client.getCompany({ companyId: "c1" })).rejects.toMatchObject({ code: "unavailable", message: "A dependency is unavailable, try again later" });
    }
    expect(inner.calls()).toBe(before);
  });

  it("half-opens after halfOpenAfterMs and closes when the trial call succeeds", async () => {
    const deadPort = await closedPort();
    let target = `http://127.0.0.1:${deadPort}`;
    // The backend comes back at another address: a transport that follows `target`.
    const follow: Transport = {
      unary: (...args) => balanced(target).unary(...args),
      stream: (...args) => balanced(target).stream(...args),
    };
    const guarded = createResilientTransport(follow, { breakAfterFailures: 2, halfOpenAfterMs: 300, retryBurst: 0 });
    const client = createServiceClient(ContentService, guarded);
    for (let i = 0; i < 2; i += 1) await expect(client.getCompany({ companyId: "c1" })).rejects.toMatchObject({ code: "unavailable" });
    expect(guarded.breakerState()).toBe("open");
    target = `http://127.0.0.1:${livePort}`;
    const deadline = Date.now() + 20_000;
    while (guarded.breakerState() !== "closed" && Date.now() < deadline) {
      await client.getCompany({ companyId: "c1" }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(guarded.breakerState()).toBe("closed");
    expect((await client.getCompany({ companyId: "c1" })).company?.name).toBe("Acme");
  });

  it("retries a refused call on another address: every call is answered", async () => {
    const deadPort = await closedPort();
    const inner = counted(balanced(`http://127.0.0.1:${deadPort},http://127.0.0.1:${livePort}`));
    const client = createServiceClient(ContentService, createResilientTransport(inner.transport, { breakAfterFailures: 100 }));
    for (let i = 0; i < 20; i += 1) expect((await client.getCompany({ companyId: "c1" })).company?.name).toBe("Acme");
    // The dead address was tried once (it then sits out), and that call was retried.
    expect(inner.calls()).toBe(21);
  });

  it("bounds retries by the budget: a dead backend sees at most burst + ratio x calls extra", async () => {
    const deadPort = await closedPort();
    const inner = counted(balanced(`http://127.0.0.1:${deadPort}`));
    const client = createServiceClient(ContentService, createResilientTransport(inner.transport, { breakAfterFailures: 10_000, retryRatio: 0.1, retryBurst: 5 }));
    for (let i = 0; i < 100; i += 1) await expect(client.getCompany({ companyId: "c1" })).rejects.toMatchObject({ code: "unavailable" });
    expect(inner.calls()).toBeGreaterThan(100);
    expect(inner.calls()).toBeLessThanOrEqual(100 + 5 + 10);
  });
});
