// Webhook verification: deliveries signed with the standardwebhooks library are accepted;
// altered, stale or foreign ones are refused; both signatures of a secret rotation are accepted.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { buffer } from "node:stream/consumers";
import { freePort } from "@support/testkit";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../src/webhooks.ts";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

function deliver(body: string, secrets: string[], at = new Date(), id = `msg_${randomBytes(8).toString("hex")}`) {
  const signature = secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(" ");
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature };
}

describe("verifyWebhook", () => {
  const secret = newSecret();
  const body = JSON.stringify({ type: "ticket.created", data: { ticketId: "t-1" } });

  it("accepts a signed delivery and returns its body", () => {
    expect(verifyWebhook(body, deliver(body, [secret]), secret)).toEqual({ type: "ticket.created", data: { ticketId: "t-1" } });
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(deliver(body, [secret])), secret)).toEqual(JSON.parse(body));
  });

  it("reads Node's header object whatever the case of the names", () => {
    const headers = Object.fromEntries(Object.entries(deliver(body, [secret])).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
  });

  it("refuses a tampered body", () => {
    const headers = deliver(body, [secret]);
    expect(() => verifyWebhook(body.replace("t-1", "t-2"), headers, secret)).toThrow(WebhookVerificationError);
  });

  it("refuses a tampered id or timestamp", () => {
    const headers = deliver(body, [secret]);
    expect(() => verifyWebhook(body, { ...headers, "webhook-id": "msg_other" }, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) }, secret)).toThrow(
      WebhookVerificationError,
    );
  });

  it("refuses a delivery older or newer than five minutes", () => {
    const old = new Date(Date.now() - 6 * 60_000);
    expect(() => verifyWebhook(body, deliver(body, [secret], old), secret)).toThrow(/too old/);
    const future = new Date(Date.now() + 6 * 60_000);
    expect(() => verifyWebhook(body, deliver(body, [secret], future), secret)).toThrow(/too new/);
    // Within the tolerance it passes.
    expect(verifyWebhook(body, deliver(body, [secret], new Date(Date.now() - 4 * 60_000)), secret)).toEqual(JSON.parse(body));
  });

  it("refuses a delivery signed with another secret", () => {
    expect(() => verifyWebhook(body, deliver(body, [newSecret()]), secret)).toThrow(WebhookVerificationError);
  });

  it("refuses a delivery without the signature headers", () => {
    const { "webhook-signature": _signature, ...unsigned } = deliver(body, [secret]);
    expect(() => verifyWebhook(body, unsigned, secret)).toThrow(WebhookVerificationError);
  });

  it("accepts two signatures during a secret rotation, with either secret", () => {
    const next = newSecret();
    const headers = deliver(body, [secret, next]);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, headers, next)).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(body, headers, newSecret())).toThrow(WebhookVerificationError);
  });

  it("accepts a delivery signed with any of several configured secrets", () => {
    const next = newSecret();
    expect(verifyWebhook(body, deliver(body, [next]), [secret, next])).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(body, deliver(body, [newSecret()]), [secret, next])).toThrow(WebhookVerificationError);
  });

  it("works in a node:http receiver as in the README", async () => {
    const handled: unknown[] = [];
    const server = createServer(async (req, res) => {
      let event;
      try {
        event = verifyWebhook(await buffer(req), req.headers, secret);
      } catch {
        return res.writeHead(400).end();
      }
      res.writeHead(204).end();
      handled.push(event);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      const post = (payload: string, headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/webhooks`, { method: "POST", body: payload, headers: { "content-type": "application/json", ...headers } });
      expect((await post(body, deliver(body, [secret]))).status).toBe(204);
      expect((await post(`${body} `, deliver(body, [secret]))).status).toBe(400);
      expect(handled).toEqual([JSON.parse(body)]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
