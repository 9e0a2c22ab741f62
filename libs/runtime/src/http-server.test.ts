import http from "node:http";
import { Writable } from "node:stream";
import { createLogger } from "@support/logging";
import { describe, expect, it } from "vitest";
import { createHost, createHttpServer, type Startable } from "./index.ts";

const logger = createLogger({ service: "http-server-test", destination: new Writable({ write: (_c, _e, done) => done() }) });

function get(url: string, agent: http.Agent): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on("error", reject);
  });
}

describe("HTTP server", () => {
  it("answers a request in flight at stop with Connection: close, closes idle connections, and stops listening", async () => {
    // The slow request is answered when the test says so.
    const state = { release: () => undefined as void };
    const server = createHttpServer({
      host: "127.0.0.1", port: 0, drainTimeoutMs: 5000, logger, name: "test",
      handler: (req, res) => {
        if (req.url === "/slow") state.release = () => void res.end("slow");
        else res.end("fast");
      },
    });
    const { port } = await server.start();
    expect(server.isStarted()).toBe(true);
    const url = `http://127.0.0.1:${port}`;
    const busy = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const idle = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(`${url}/fast`, idle)).toEqual({ status: 200, connection: "keep-alive", body: "fast" });
    const slow = get(`${url}/slow`, busy);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const stopped = server.stop();
    expect(server.isStopping()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    state.release();
    expect(await slow).toEqual({ status: 200, connection: "close", body: "slow" });
    await stopped;
    await expect(fetch(`${url}/fast`)).rejects.toThrow();
    busy.destroy();
    idle.destroy();
  });
});

describe("host", () => {
  it("starts metrics, workers in order, then the server; stops the server, the workers in reverse, then NATS", async () => {
    const steps: string[] = [];
    const worker = (name: string): Startable => ({ start: () => void steps.push(`start ${name}`), stop: async () => void steps.push(`stop ${name}`) });
    let closed = false;
    const nc = { isClosed: () => closed, drain: async () => void ((closed = true), steps.push("drain nats")) };
    const host = createHost({
      config: { METRICS_HOST: "127.0.0.1", METRICS_PORT: 0 },
      logger,
      server: { start: async () => (steps.push("start server"), { port: 1234 }), stop: async () => void steps.push("stop server") },
      workers: [worker("a"), worker("b")],
      nc: nc as never,
    });
    const { port, metricsPort } = await host.start();
    expect(port).toBe(1234);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
    await host.stop();
    expect(steps).toEqual(["start a", "start b", "start server", "stop server", "stop b", "stop a", "drain nats"]);
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});
