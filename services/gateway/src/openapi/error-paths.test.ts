// The `path` of a validation issue says where the offending value is, by one rule for every
// part of a request (docs/api-decisions.md, "Errors"): the body from its root (`/url`), a
// query parameter `/query/<name>`, a path parameter `/path/<name>`, a header
// `/header/<name>` with the name as the document declares it. One error of each kind,
// provoked through real HTTP against a gateway whose services are never reached.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";
import { getOperation } from "./operations.ts";

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  key = gw.content.addKey(randomUUID());
});

afterAll(async () => {
  await gw?.stop();
});

async function issuePaths(path: string, init: RequestInit & { json?: unknown } = {}): Promise<string[]> {
  const response = await gw.request(path, { ...init, key });
  expect(response.status, response.text).toBe(400);
  expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
  return (response.body as { details: { issues: { path: string }[] } }).details.issues.map((issue) => issue.path);
}

describe("the path of a validation issue", () => {
  it("names a body value from the body's root", async () => {
    expect(await issuePaths("/webhooks", { method: "POST", json: { url: "https://example.com/hook", eventTypes: ["ticket.created"], enabled: "yes" } })).toEqual([
      "/enabled",
    ]);
  });

  it("names a query parameter /query/<name>", async () => {
    expect(await issuePaths(`/webhooks/${randomUUID()}/deliveries?limit=0`)).toEqual(["/query/limit"]);
  });

  it("names a path parameter /path/<name>", async () => {
    expect(await issuePaths("/webhooks/not-a-uuid")).toEqual(["/path/webhookId"]);
  });

  it("names a header /header/<name>, spelled as the document declares it", async () => {
    const declared = getOperation("createWebhook").parameters.find((parameter) => parameter.in === "header");
    expect(declared?.name).toBe("Idempotency-Key");
    const paths = await issuePaths("/webhooks", {
      method: "POST",
      headers: { "idempotency-key": "k".repeat(256) },
      json: { url: "https://example.com/hook", eventTypes: ["ticket.created"] },
    });
    expect(paths).toEqual([`/header/${declared!.name}`]);
  });
});
