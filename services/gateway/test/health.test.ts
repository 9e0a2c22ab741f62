// GET /healthz and /readyz against the real services.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type Stack } from "./stack.ts";

describe("health through the real stack", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.stop());

  it("answers 200 when every service is SERVING", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await stack.request(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ok", services: { content: "ok", tickets: "ok", media: "ok", players: "ok" } });
    }
  });

  it("answers 503 naming the stopped service, with no address", async () => {
    await stack.stopService("media");
    await eventually(async () => (await stack.request("/readyz")).status === 503, 5000);
    const response = await stack.request("/healthz");
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: "unavailable", status: "unavailable", services: { content: "ok", tickets: "ok", media: "unavailable", players: "ok" } });
    expect(response.text).not.toMatch(/127\.0\.0\.1|:\d{4,5}/);
  });
});
