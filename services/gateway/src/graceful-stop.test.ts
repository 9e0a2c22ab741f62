import http from "node:http";
import { currentRequestId } from "@support/logging";
import { afterAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "./test-helpers.ts";

const COMPANY = "11111111-1111-4111-8111-111111111111";
const CONNECTIONS = 32;
const SHUTDOWN_TIMEOUT_MS = 5000;

interface Outcome {
  id: string;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  connection?: string;
  error?: string;
}

/** One PUT on the given keep-alive agent; resolves when the answer is complete or the request failed. */
let sequence = 0;

function put(url: string, agent: http.Agent, key: string): Promise<Outcome> {
  const body = JSON.stringify({ shortContent: { en: "still here" }, longContent: null, gameId: null });
  return new Promise((resolve) => {
    const outcome: Outcome = { id: `graceful-${++sequence}`, sentAt: performance.now() };
    const req = http.request(`${url}/announcements`, {
      method: "PUT",
      agent,
      headers: { "x-request-id": outcome.id, authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => {
        outcome.answeredAt = performance.now();
        outcome.status = res.statusCode;
        outcome.connection = res.headers.connection;
        resolve(outcome);
      });
      res.on("error", (error) => resolve({ ...outcome, answeredAt: performance.now(), error: `response: ${error.message}` }));
    });
    req.on("error", (error) => resolve({ ...outcome, answeredAt: performance.now(), error: error.message }));
    req.end(body);
  });
}

describe("gateway graceful stop", () => {
  let t: TestGateway | undefined;
  afterAll(() => t?.stop());

  it("answers every request under 32 keep-alive connections, tells each client Connection: close, and ends within the window", async () => {
    // 33 writes at once: above the door's default admission of writes (32), which is not under test here.
    t = await startTestGateway({ config: { SHUTDOWN_TIMEOUT_MS, MAX_WRITES_IN_PROGRESS: 64 } });
    const gateway = t;
    const key = gateway.content.addKey(COMPANY);
    gateway.content.delayMs = 100; // every write is in flight for a while
    const committedBefore = gateway.content.count("putAnnouncement");
    // When the backend finished each write, by request id: an answer whose backend call ended
    // after the signal had its head written after the signal.
    const backendDone = new Map<string, number>();
    const enter = gateway.content.enter.bind(gateway.content);
    gateway.content.enter = async (method) => {
      await enter(method);
      if (method === "putAnnouncement") backendDone.set(currentRequestId() ?? "", performance.now());
    };

    let signalAt = Number.POSITIVE_INFINITY;
    const outcomes: Outcome[] = [];
    const agents = Array.from({ length: CONNECTIONS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    // Each client sends its next request as soon as it has an answer, until it is told the
    // connection closes (or a request fails, which the assertions below refuse).
    const clients = agents.map(async (agent) => {
      for (;;) {
        const outcome = await put(gateway.url, agent, key);
        outcomes.push(outcome);
        if (outcome.error || outcome.connection === "close") return;
      }
    });

    // An idle keep-alive connection too: closed soon after the signal, not at the end of the window.
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await put(gateway.url, idleAgent, key)).status).toBe(200);
    const idleSocketClosed = new Promise<number>((resolve) => {
      const sockets = Object.values(idleAgent.freeSockets).flat();
      expect(sockets).toHaveLength(1);
      sockets[0]!.once("close", () => resolve(performance.now()));
    });

    await new Promise((resolve) => setTimeout(resolve, 500));
    signalAt = performance.now();
    await gateway.gateway.stop();
    const stoppedAt = performance.now();
    await Promise.all(clients);
    for (const agent of [...agents, idleAgent]) agent.destroy();

    // Nothing cut: every request sent got a complete answer.
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes.every((o) => o.status === 200)).toBe(true);
    // Every write the backend received was answered (none committed and then cut); the one
    // extra is the idle connection's.
    expect(gateway.content.count("putAnnouncement") - committedBefore).toBe(outcomes.length + 1);
    // After the signal every answer says the connection closes: those sent after it, and those
    // whose backend call (and so the head of the answer) ended after it.
    expect(outcomes.every((o) => backendDone.has(o.id))).toBe(true);
    const afterSignal = outcomes.filter((o) => o.sentAt >= signalAt || backendDone.get(o.id)! > signalAt);
    expect(afterSignal.length).toBeGreaterThanOrEqual(CONNECTIONS / 2);
    expect(afterSignal.filter((o) => o.connection !== "close")).toEqual([]);
    expect(outcomes.filter((o) => o.connection === "close")).toHaveLength(CONNECTIONS);
    // Done when the last answer is out, well within the window; the idle connection went first.
    expect(stoppedAt - signalAt).toBeLessThan(SHUTDOWN_TIMEOUT_MS - 1000);
    expect((await idleSocketClosed) - signalAt).toBeLessThan(2000);
    // The port no longer takes connections.
    await expect(fetch(`${gateway.url}/readyz`)).rejects.toThrow();
  });

  it("fails readiness as soon as it is told to stop, before it stops taking connections", async () => {
    const gateway = await startTestGateway();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const readyz = () =>
      new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        http
          .get(`${gateway.url}/readyz`, { agent }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          })
          .on("error", reject);
      });
    expect(await readyz()).toEqual({ status: 200, connection: "keep-alive" });
    const stopping = gateway.gateway.stop();
    // The same keep-alive connection, right after the signal: not ready, and told to close.
    expect(await readyz()).toEqual({ status: 503, connection: "close" });
    await stopping;
    agent.destroy();
  });
});
