// The balanced transport against real servers: replicas on several loopback addresses (all of
// 127/8 is loopback on Linux) with one port, found by an injected resolver, as the addresses of
// a headless Service would be.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import { ContentService } from "@support/proto";
import { hostsFileResolver } from "./balancer.ts";
import { createBalancedTransport, createRpcServer, createServiceClient, type RpcServer } from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

/** A port free on every loopback address used here. */
async function freeLoopbackPort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const free = await Promise.all(
      ["127.0.0.2", "127.0.0.3", "127.0.0.4"].map(
        (host) =>
          new Promise<boolean>((resolve) => {
            const probe = net.createServer();
            probe.once("error", () => resolve(false));
            probe.listen(port, host, () => probe.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return port;
  }
}

/** A replica answering getCompany with its own address as the company name. */
function replica(host: string, port: number): RpcServer {
  return createRpcServer({
    serviceName: "content.v1.ContentService",
    logger: silent,
    isReady: async () => true,
    port,
    host,
    routes: (router) =>
      router.service(ContentService, {
        async getCompany(request) {
          return { company: { id: request.companyId, name: host, primaryLanguage: "en" } };
        },
      }),
  });
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("balanced transport", () => {
  let port = 0;
  const servers = new Map<string, RpcServer>();
  let addresses: string[] = [];
  const resolver = async (hostname: string) => {
    if (hostname !== "content.test") throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses;
  };
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    port = await freeLoopbackPort();
    for (const host of ["127.0.0.2", "127.0.0.3"]) {
      const server = replica(host, port);
      await server.start();
      servers.set(host, server);
    }
  });
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  afterAll(async () => {
    for (const server of servers.values()) await server.stop();
  });

  function client(resolveIntervalMs = 60_000, ejectMs = 60_000) {
    const transport = createBalancedTransport(`http://content.test:${port}`, { resolver, resolveIntervalMs, ejectMs });
    closers.push(() => transport.close());
    return { transport, content: createServiceClient(ContentService, transport) };
  }

  async function spread(content: ReturnType<typeof client>["content"], calls: number): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    // In parallel batches: every call shares the connections, none waits for a free one.
    for (let i = 0; i < calls; i += 20) {
      const names = await Promise.all(Array.from({ length: Math.min(20, calls - i) }, () => content.getCompany({ companyId: "c1" })));
      for (const answer of names) counts[answer.company!.name] = (counts[answer.company!.name] ?? 0) + 1;
    }
    return counts;
  }

  it("spreads calls evenly over every address the name resolves to", async () => {
    addresses = ["127.0.0.2", "127.0.0.3"];
    const { content, transport } = client();
    const counts = await spread(content, 200);
    expect(counts).toEqual({ "127.0.0.2": 100, "127.0.0.3": 100 });
    expect(transport.addresses().map((a) => a.url).sort()).toEqual([`http://127.0.0.2:${port}`, `http://127.0.0.3:${port}`]);
  });

  it("takes a new address into the rotation at the next lookup, and drops a vanished one", async () => {
    addresses = ["127.0.0.2"];
    const { content } = client(200);
    expect(await spread(content, 20)).toEqual({ "127.0.0.2": 20 });
    const third = replica("127.0.0.4", port);
    await third.start();
    servers.set("127.0.0.4", third);
    addresses = ["127.0.0.2", "127.0.0.4"];
    await eventually("the new address gets calls", async () => (await spread(content, 20))["127.0.0.4"] !== undefined);
    addresses = ["127.0.0.4"];
    await eventually("the vanished address gets no calls", async () => (await spread(content, 20))["127.0.0.2"] === undefined);
    expect(await spread(content, 40)).toEqual({ "127.0.0.4": 40 });
  });

  it("sends calls to the others while an address refuses connections", async () => {
    addresses = ["127.0.0.2", "127.0.0.5"];
    const { content } = client();
    // 127.0.0.5 never listens: its first call fails, then it sits out and the others answer.
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => content.getCompany({ companyId: "c1" })));
    expect(outcomes.filter((o) => o.status === "rejected").length).toBeLessThanOrEqual(2);
    expect(await spread(content, 40)).toEqual({ "127.0.0.2": 40 });
  });

  it("balances a comma-separated list of URLs", async () => {
    const transport = createBalancedTransport(`http://127.0.0.2:${port}, http://127.0.0.3:${port}`);
    closers.push(() => transport.close());
    const counts = await spread(createServiceClient(ContentService, transport), 100);
    expect(counts).toEqual({ "127.0.0.2": 50, "127.0.0.3": 50 });
  });

  it("answers `unavailable` when the name does not resolve", async () => {
    const transport = createBalancedTransport(`http://nowhere.test:${port}`, { resolver });
    closers.push(() => transport.close());
    const error = await createServiceClient(ContentService, transport).getCompany({ companyId: "c1" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unavailable" });
  });
});

describe("hosts file resolver", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "hosts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every address of a name on each lookup, and asks the fallback for others", async () => {
    const file = path.join(dir, "hosts");
    writeFileSync(file, "# replicas\n127.0.0.2 tickets tickets.local\n127.0.0.3\ttickets # second\n::1 other\n");
    const resolve = hostsFileResolver(file, async (name) => [`fallback:${name}`]);
    expect(await resolve("tickets")).toEqual(["127.0.0.2", "127.0.0.3"]);
    expect(await resolve("content")).toEqual(["fallback:content"]);
    writeFileSync(file, "127.0.0.4 tickets\n");
    expect(await resolve("tickets")).toEqual(["127.0.0.4"]);
  });
});
