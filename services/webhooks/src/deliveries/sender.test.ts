// The sender against local receivers (node:http): redirects are not followed, answers are cut
// at 2,048 bytes, a silent receiver times out, and the connection goes to the checked address
// whatever the host name would resolve to.
import { createServer, type Server } from "node:http";
import { freePort } from "@support/testkit";
import { Agent, request } from "undici";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedLookup } from "../security/target.ts";
import { newSigningSecret } from "../security/secret-box.ts";
import { sendDelivery } from "./sender.ts";

let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = createServer((req, res) => {
    req.resume();
    if (req.url === "/redirect") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` });
      res.end();
    } else if (req.url === "/large") {
      res.writeHead(200);
      res.end("é".repeat(3000));
    } else if (req.url === "/silent") {
      // Never answers.
    } else {
      res.writeHead(200, { "retry-after": "7" });
      res.end(JSON.stringify(req.headers));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local = { policy: { allowHttp: true, allowPrivateTargets: true }, timeoutMs: 1000 };

describe("sender", () => {
  it("signs with every secret given", async () => {
    const secrets = [newSigningSecret(), newSigningSecret()];
    const payload = JSON.stringify({ type: "webhook.test", timestamp: new Date().toISOString(), data: {} });
    const result = await sendDelivery({ id: "msg_1", url: `${base}/ok`, payload, secrets }, local);
    expect(result.status).toBe(200);
    const headers = JSON.parse(result.body!) as Record<string, string>;
    expect(headers["webhook-id"]).toBe("msg_1");
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of secrets) expect(() => new Webhook(secret).verify(payload, headers)).not.toThrow();
    expect(result.retryAfterSeconds).toBe(7);
  });

  it("does not follow redirects and keeps 2,048 bytes of an answer", async () => {
    expect(await sendDelivery({ id: "m", url: `${base}/redirect`, payload: "{}", secrets: [newSigningSecret()] }, local)).toMatchObject({ status: 302 });
    const large = await sendDelivery({ id: "m", url: `${base}/large`, payload: "{}", secrets: [newSigningSecret()] }, local);
    expect(Buffer.byteLength(large.body!)).toBeLessThanOrEqual(2048);
    expect(large.body).toMatch(/^(é)+$/);
  });

  it("gives up on a silent receiver and refuses private targets", async () => {
    expect(await sendDelivery({ id: "m", url: `${base}/silent`, payload: "{}", secrets: [newSigningSecret()] }, local)).toEqual({ error: "timeout after 1 s" });
    expect(await sendDelivery({ id: "m", url: `${base}/ok`, payload: "{}", secrets: [newSigningSecret()] }, { ...local, policy: { allowHttp: true, allowPrivateTargets: false } })).toEqual({
      error: "target resolves to a private address",
    });
    // An IPv4-compatible form of loopback is refused even where private targets are allowed.
    expect(await sendDelivery({ id: "m", url: `http://[::7f00:1]:${port}/ok`, payload: "{}", secrets: [newSigningSecret()] }, local)).toEqual({
      error: "target resolves to a link-local, metadata or tunnelled address (never allowed)",
    });
  });

  it("connects to the pinned address, not to what the name resolves to", async () => {
    const agent = new Agent({ connect: { lookup: pinnedLookup([{ address: "127.0.0.1", family: 4 }]) } });
    try {
      const response = await request(`http://pinned.invalid:${port}/ok`, { dispatcher: agent });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    } finally {
      await agent.close();
    }
  });
});
