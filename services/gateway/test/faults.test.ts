// The error contract for faults through the real stack: a stopped service, a service behind a
// service that is stopped, a service that never answers, and a flood over a service's admission
// limit.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const UNAVAILABLE = { code: "unavailable", message: "A dependency is unavailable, try again later" };

describe("faults through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let key: string;
  let galaxy: string;
  let counter = 0;
  const ticket = () => {
    counter += 1;
    return {
      gameId: galaxy,
      message: `Fault number ${counter} while buying item ${counter * 7919}`,
      language: "en",
      channels: ["email"],
      metadata: { player: { id: `fault-player-${counter}`, email: `fault${counter}@example.com` } },
    };
  };

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenantA);
    key = a.apiKeys.main!;
    galaxy = a.games.galaxy!.id;
  });
  afterAll(() => stack?.stop());

  it("answers 503 with Retry-After when a service the called service needs is stopped", async () => {
    expect((await stack.request("/tickets", { method: "POST", key, json: ticket() })).status).toBe(200);
    await stack.stopService("players");
    try {
      const response = await stack.request("/tickets", { method: "POST", key, json: ticket() });
      expect(response.status, response.text).toBe(503);
      expect(response.headers.get("retry-after")).toBe("2");
      expect(response.body).toEqual(UNAVAILABLE);
      expect(response.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      await stack.startService("players");
    }
  });

  it("answers 504 when a service never answers, within the gateway's deadline", async () => {
    // Something that accepts connections on the players' port and never answers.
    await stack.stopService("players");
    const port = Number(new URL(stack.serviceUrls.players).port);
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(port, "127.0.0.1", resolve));
    const gateway = await stack.startGateway({ RPC_TIMEOUT_MS: 1500 });
    try {
      const started = Date.now();
      const response = await gateway.request("/tickets", { method: "POST", key, json: ticket() });
      expect(response.status, response.text).toBe(504);
      expect(response.body).toMatchObject({ code: "deadline_exceeded" });
      expect((response.body as { message: string }).message).toContain("may or may not have been applied");
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await gateway.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await stack.startService("players");
    }
  });

  it("answers 503 with Retry-After when the called service is stopped, for reads and writes", async () => {
    await stack.stopService("tickets");
    try {
      const read = await stack.request("/tickets", { key });
      expect(read.status, read.text).toBe(503);
      expect(read.headers.get("retry-after")).toBe("2");
      expect(read.body).toEqual(UNAVAILABLE);
      const write = await stack.request("/tickets", { method: "POST", key, json: ticket() });
      expect(write.status, write.text).toBe(503);
      expect(write.body).toEqual(UNAVAILABLE);
      expect(write.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      await stack.startService("tickets");
    }
  });

  it("refuses calls over a service's admission limit at once with 503 busy, writes nothing for them, and keeps the breaker closed", async () => {
    const gateway = await stack.startGateway({ RPC_MAX_IN_FLIGHT: 2, RPC_MAX_QUEUED: 2, RPC_MAX_WAIT_MS: 10 });
    try {
      const newest = async () => Number(((await gateway.request("/tickets?order=desc&limit=1", { key })).body as { tickets: { runningId: number }[] }).tickets[0]?.runningId ?? 0);
      const before = await newest();
      const answers = await Promise.all(Array.from({ length: 40 }, () => gateway.request("/tickets", { method: "POST", key, json: ticket() })));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.every((status) => status === 200 || status === 503), statuses.join(" ")).toBe(true);
      const refused = answers.filter((answer) => answer.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.length).toBeLessThan(40);
      for (const answer of refused) {
        expect(answer.body).toEqual({ code: "unavailable", message: "The service is busy; nothing was done. Retry shortly" });
        expect(answer.headers.get("retry-after")).toBe("2");
      }
      // Running ids are gapless per company: exactly the accepted creations were written.
      expect((await newest()) - before).toBe(40 - refused.length);
      const dependencies = (await gateway.request("/healthz/dependencies")).body as { services: Record<string, { breaker: string }> };
      expect(dependencies.services.tickets!.breaker).toBe("closed");
      expect((await gateway.request("/tickets", { method: "POST", key, json: ticket() })).status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });
});
