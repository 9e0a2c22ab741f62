import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, portIsFree, tcpAnswers } from "./net.ts";

describe("tcpAnswers", () => {
  it("reports a closed port as not answering within the probe timeout", async () => {
    const port = await freePort();
    const started = performance.now();
    expect(await tcpAnswers("127.0.0.1", port, 300)).toBe(false);
    expect(performance.now() - started).toBeLessThan(400);
  });

  it("reports a listening port as answering", async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      expect(await tcpAnswers("127.0.0.1", port)).toBe(true);
      expect(await portIsFree(port)).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe("freePort", () => {
  it("draws free ports below the kernel's ephemeral range, where no outgoing connection can take them", async () => {
    const ephemeralLow = Number((await import("node:fs")).readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeLessThan(ephemeralLow);
      expect(port).toBeGreaterThanOrEqual(1024);
      expect(await portIsFree(port)).toBe(true);
    }
    expect(new Set(ports).size).toBeGreaterThan(15); // drawn at random, not one port again and again
  });

  it("never hands out a port twice in one process, even to calls made at once before any server binds", async () => {
    const ports = await Promise.all(Array.from({ length: 300 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
  });
});
