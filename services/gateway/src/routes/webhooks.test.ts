// The webhook routes against an in-memory WebhooksService (behind Connect's router transport
// and the same error mapping as the real clients): what the gateway itself does, i.e.
// request validation, the mapping both ways, error bodies and the secret shown once. The
// webhooks service's own rules are tested against the real service in test/webhooks.test.ts.
import { randomBytes, randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { validationError } from "@support/errors";
import { WebhooksService, type Delivery, type Webhook } from "@support/proto";
import { appErrorToConnect, domainTransport } from "@support/rpc";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { validateResponse } from "../openapi/validation.ts";
import { startTestGateway, type TestGateway } from "../test-helpers.ts";

const A = "aaaaaaaa-0000-4000-8000-00000000000a";
const B = "bbbbbbbb-0000-4000-8000-00000000000b";
const AT = new Date("2026-11-24T10:15:00.000Z");

/** WebhooksService in memory, scoped by company like the real one; records the last request of each method. */
class FakeWebhooks {
  readonly webhooks = new Map<string, Webhook & { secret: string }>();
  readonly deliveries: Delivery[] = [];
  readonly requests = new Map<string, unknown>();
  down = false;

  private find(companyId: string, webhookId: string) {
    const webhook = this.webhooks.get(webhookId);
    if (webhook === undefined || webhook.companyId !== companyId) throw new ConnectError("webhook not found", Code.NotFound);
    return webhook;
  }

  private enter(method: string, request: unknown) {
    this.requests.set(method, request);
    if (this.down) throw new ConnectError("connect ECONNREFUSED 10.1.2.3:50055", Code.Unavailable);
  }

  private view(webhook: Webhook & { secret: string }): Webhook {
    const { secret: _secret, ...rest } = webhook;
    return rest as Webhook;
  }

  client() {
    const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
    const transport = createRouterTransport(({ service }) =>
      service(WebhooksService, {
        createWebhook: (request) => {
          this.enter("createWebhook", request);
          if (!request.url.startsWith("https://")) throw appErrorToConnect(validationError([{ path: "/url", message: "must be an https URL" }]));
          const webhook = {
            $typeName: "webhooks.v1.Webhook" as const,
            id: randomUUID(),
            companyId: request.companyId,
            url: request.url,
            description: request.description,
            eventTypes: request.eventTypes,
            gameIds: request.gameIds,
            enabled: request.enabled ?? true,
            source: "api",
            createdAt: timestampFromDate(AT),
            updatedAt: timestampFromDate(AT),
            secret: secret(),
          } satisfies Webhook & { secret: string };
          this.webhooks.set(webhook.id, webhook);
          return { webhook: this.view(webhook), secret: webhook.secret };
        },
        listWebhooks: (request) => {
          this.enter("listWebhooks", request);
          return { webhooks: [...this.webhooks.values()].filter((w) => w.companyId === request.companyId).map((w) => this.view(w)) };
        },
        getWebhook: (request) => {
          this.enter("getWebhook", request);
          return { webhook: this.view(this.find(request.companyId, request.webhookId)) };
        },
        updateWebhook: (request) => {
          this.enter("updateWebhook", request);
          const webhook = this.find(request.companyId, request.webhookId);
          if (request.url !== undefined) webhook.url = request.url;
          if (request.description !== undefined) webhook.description = request.description;
          if (request.setEventTypes) webhook.eventTypes = request.eventTypes;
          if (request.setGameIds) webhook.gameIds = request.gameIds;
          if (request.enabled !== undefined) webhook.enabled = request.enabled;
          return { webhook: this.view(webhook) };
        },
        deleteWebhook: (request) => {
          this.enter("deleteWebhook", request);
          this.find(request.companyId, request.webhookId);
          this.webhooks.delete(request.webhookId);
          return {};
        },
        rotateWebhookSecret: (request) => {
          this.enter("rotateWebhookSecret", request);
          const webhook = this.find(request.companyId, request.webhookId);
          webhook.secret = secret();
          webhook.previousSecretExpiresAt = timestampFromDate(new Date(AT.getTime() + 86_400_000));
          return { webhook: this.view(webhook), secret: webhook.secret };
        },
        listDeliveries: (request) => {
          this.enter("listDeliveries", request);
          this.find(request.companyId, request.webhookId);
          const all = this.deliveries.filter((d) => d.webhookId === request.webhookId && (request.status === undefined || d.status === request.status));
          const start = request.cursor === undefined ? 0 : Number(request.cursor);
          if (!Number.isInteger(start)) throw appErrorToConnect(validationError([{ path: "/query/cursor", message: "is not a valid cursor" }]));
          const page = all.slice(start, start + request.limit);
          return { deliveries: page, nextCursor: start + request.limit < all.length ? String(start + request.limit) : undefined };
        },
        retryDelivery: (request) => {
          this.enter("retryDelivery", request);
          this.find(request.companyId, request.webhookId);
          const delivery = this.deliveries.find((d) => d.id === request.deliveryId && d.webhookId === request.webhookId);
          if (delivery === undefined) throw new ConnectError("delivery not found", Code.NotFound);
          delivery.status = "pending";
          delivery.nextAttemptAt = timestampFromDate(AT);
          return { delivery };
        },
        sendTestEvent: (request) => {
          this.enter("sendTestEvent", request);
          this.find(request.companyId, request.webhookId);
          const delivery = this.delivery(request.webhookId, "webhook.test");
          return { delivery };
        },
      }),
    );
    return createClient(WebhooksService, domainTransport(transport, 5000));
  }

  delivery(webhookId: string, eventType: string, status = "pending"): Delivery {
    const delivery = {
      $typeName: "webhooks.v1.Delivery" as const,
      id: randomUUID(),
      webhookId,
      eventType,
      eventId: eventType === "webhook.test" ? undefined : randomUUID(),
      status,
      attempts: status === "pending" ? 0 : 1,
      createdAt: timestampFromDate(AT),
      nextAttemptAt: status === "pending" ? timestampFromDate(AT) : undefined,
      lastAttemptAt: status === "pending" ? undefined : timestampFromDate(AT),
      lastResponseStatus: status === "succeeded" ? 204 : undefined,
      lastResponseBody: status === "succeeded" ? "" : undefined,
      lastError: status === "failed" ? "timeout after 10 s" : undefined,
      payload: JSON.stringify({ type: eventType, timestamp: AT.toISOString(), data: { ticketId: randomUUID() } }),
    } satisfies Delivery;
    this.deliveries.push(delivery);
    return delivery;
  }
}

describe("webhook routes", () => {
  let t: TestGateway;
  let fake: FakeWebhooks;
  let keyA: string;
  let keyB: string;

  // Every answer must match the OpenAPI document.
  const call = async (operationId: string, path: string, init: Parameters<TestGateway["request"]>[1] = {}) => {
    const response = await t.request(path, init);
    expect(validateResponse(operationId, response.status, response.body, response.headers), JSON.stringify(response.body)).toBeNull();
    return response;
  };
  const create = async (key = keyA, json: unknown = { url: "https://hooks.example.com/a", eventTypes: ["ticket.created"] }) =>
    (await call("createWebhook", "/webhooks", { method: "POST", key, json })).body as { webhook: { id: string }; secret: string };

  beforeAll(async () => {
    fake = new FakeWebhooks();
    t = await startTestGateway({ webhooks: fake.client() });
    keyA = t.content.addKey(A);
    keyB = t.content.addKey(B);
  });
  afterAll(() => t.stop());
  beforeEach(() => {
    fake.webhooks.clear();
    fake.deliveries.length = 0;
    fake.down = false;
  });

  it("POST /webhooks creates a subscription and shows its secret once; GET never shows it", async () => {
    const gameId = randomUUID();
    const response = await call("createWebhook", "/webhooks", {
      method: "POST",
      key: keyA,
      json: { url: "https://hooks.example.com/a", description: "dashboard", eventTypes: ["ticket.created", "ticket.resolved"], gameIds: [gameId] },
    });
    expect(response.status).toBe(200);
    const body = response.body as { webhook: Record<string, unknown>; secret: string };
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.webhook).toEqual({
      id: expect.any(String),
      url: "https://hooks.example.com/a",
      description: "dashboard",
      eventTypes: ["ticket.created", "ticket.resolved"],
      gameIds: [gameId],
      enabled: true,
      disabledReason: null,
      source: "api",
      createdAt: "2026-11-24T10:15:00.000Z",
      updatedAt: "2026-11-24T10:15:00.000Z",
      previousSecretExpiresAt: null,
    });
    expect(fake.requests.get("createWebhook")).toMatchObject({ companyId: A, enabled: true, description: "dashboard" });

    const got = await call("getWebhook", `/webhooks/${body.webhook.id as string}`, { key: keyA });
    expect(got.body).toEqual(body.webhook);
    expect(got.text).not.toContain(body.secret);
    const list = await call("listWebhooks", "/webhooks", { key: keyA });
    expect(list.body).toEqual({ webhooks: [body.webhook] });
    expect(list.text).not.toContain(body.secret);
  });

  it("refuses bad bodies with the validation error body before calling the service", async () => {
    fake.requests.clear();
    const response = await call("createWebhook", "/webhooks", {
      method: "POST",
      key: keyA,
      json: { url: "not a url", eventTypes: ["ticket.exploded"], gameIds: ["nope"], extra: 1 },
    });
    expect(response.status).toBe(400);
    const body = response.body as { code: string; details: { type: string; issues: { path: string }[] } };
    expect(body.code).toBe("invalid_argument");
    expect(body.details.type).toBe("VALIDATION_ERROR");
    expect(body.details.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(["/url", "/eventTypes/0", "/gameIds/0"]));
    expect(fake.requests.has("createWebhook")).toBe(false);

    const empty = await call("createWebhook", "/webhooks", { method: "POST", key: keyA, json: { url: "https://hooks.example.com/a", eventTypes: [] } });
    expect(empty.status).toBe(400);
    const { webhook } = await create();
    const patch = await call("updateWebhook", `/webhooks/${webhook.id}`, { method: "PATCH", key: keyA, json: {} });
    expect(patch.status).toBe(400);
    const badId = await call("getWebhook", "/webhooks/not-a-uuid", { key: keyA });
    expect(badId.status).toBe(400);
    expect((badId.body as { details: { issues: { path: string }[] } }).details.issues[0]!.path).toBe("/path/webhookId");
    const badLimit = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?limit=101`, { key: keyA });
    expect(badLimit.status).toBe(400);
    const badStatus = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?status=lost`, { key: keyA });
    expect(badStatus.status).toBe(400);
  });

  it("passes the service's validation issues through, naming the body's pointer", async () => {
    const response = await call("createWebhook", "/webhooks", { method: "POST", key: keyA, json: { url: "http://hooks.example.com/a", eventTypes: ["ticket.created"] } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      code: "invalid_argument",
      message: "Request validation failed",
      details: { type: "VALIDATION_ERROR", issues: [{ path: "/url", message: "must be an https URL" }] },
    });
  });

  it("needs the API key on every route", async () => {
    const id = randomUUID();
    for (const [operationId, method, path] of [
      ["listWebhooks", "GET", "/webhooks"],
      ["createWebhook", "POST", "/webhooks"],
      ["getWebhook", "GET", `/webhooks/${id}`],
      ["updateWebhook", "PATCH", `/webhooks/${id}`],
      ["deleteWebhook", "DELETE", `/webhooks/${id}`],
      ["rotateWebhookSecret", "POST", `/webhooks/${id}/rotate-secret`],
      ["listWebhookDeliveries", "GET", `/webhooks/${id}/deliveries`],
      ["retryWebhookDelivery", "POST", `/webhooks/${id}/deliveries/${id}/retry`],
      ["sendWebhookTestEvent", "POST", `/webhooks/${id}/test`],
    ] as const) {
      const response = await call(operationId, path, { method, json: method === "POST" || method === "PATCH" ? {} : undefined });
      expect(response.status, operationId).toBe(403);
      expect((response.body as { code: string }).code).toBe("unauthenticated");
    }
  });

  it("answers another company's webhook with 404 on every route", async () => {
    const { webhook } = await create(keyA);
    const delivery = fake.delivery(webhook.id, "ticket.created", "failed");
    for (const [operationId, method, path, json] of [
      ["getWebhook", "GET", `/webhooks/${webhook.id}`, undefined],
      ["updateWebhook", "PATCH", `/webhooks/${webhook.id}`, { enabled: false }],
      ["deleteWebhook", "DELETE", `/webhooks/${webhook.id}`, undefined],
      ["rotateWebhookSecret", "POST", `/webhooks/${webhook.id}/rotate-secret`, undefined],
      ["listWebhookDeliveries", "GET", `/webhooks/${webhook.id}/deliveries`, undefined],
      ["retryWebhookDelivery", "POST", `/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, undefined],
      ["sendWebhookTestEvent", "POST", `/webhooks/${webhook.id}/test`, undefined],
    ] as const) {
      const response = await call(operationId, path, { method, key: keyB, json });
      expect(response.status, operationId).toBe(404);
      expect(response.body, operationId).toEqual({ code: "not_found", message: "webhook not found" });
    }
    expect((await call("listWebhooks", "/webhooks", { key: keyB })).body).toEqual({ webhooks: [] });
    expect((await call("getWebhook", `/webhooks/${webhook.id}`, { key: keyA })).status).toBe(200);
  });

  it("PATCH sends only what is given: lists are replaced when present, an empty gameIds means every game", async () => {
    const { webhook } = await create();
    const response = await call("updateWebhook", `/webhooks/${webhook.id}`, { method: "PATCH", key: keyA, json: { gameIds: [], enabled: false } });
    expect(response.status).toBe(200);
    const sent = fake.requests.get("updateWebhook") as Record<string, unknown>;
    expect(sent).toMatchObject({ setGameIds: true, gameIds: [], setEventTypes: false, enabled: false });
    expect([sent.url, sent.description]).toEqual([undefined, undefined]);
    expect(response.body).toMatchObject({ id: webhook.id, enabled: false, gameIds: [], eventTypes: ["ticket.created"] });
  });

  it("DELETE removes the subscription; rotating returns a new secret once with the overlap's end", async () => {
    const created = await create();
    const rotated = await call("rotateWebhookSecret", `/webhooks/${created.webhook.id}/rotate-secret`, { method: "POST", key: keyA });
    expect(rotated.status).toBe(200);
    const body = rotated.body as { webhook: { previousSecretExpiresAt: string }; secret: string };
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(created.secret);
    expect(body.webhook.previousSecretExpiresAt).toBe("2026-11-25T10:15:00.000Z");
    const deleted = await call("deleteWebhook", `/webhooks/${created.webhook.id}`, { method: "DELETE", key: keyA });
    expect(deleted.body).toEqual({ success: true });
    expect((await call("getWebhook", `/webhooks/${created.webhook.id}`, { key: keyA })).status).toBe(404);
  });

  it("pages deliveries with the cursor and the status filter, payloads as JSON", async () => {
    const { webhook } = await create();
    for (let i = 0; i < 3; i++) fake.delivery(webhook.id, "ticket.created", "succeeded");
    fake.delivery(webhook.id, "ticket.created", "failed");
    const first = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?limit=2`, { key: keyA });
    const page = first.body as { deliveries: { id: string; payload: { type: string } }[]; pagination: { cursor: string | null } };
    expect(page.deliveries).toHaveLength(2);
    expect(page.deliveries[0]!.payload.type).toBe("ticket.created");
    const sent = fake.requests.get("listDeliveries") as Record<string, unknown>;
    expect([sent.limit, sent.cursor, sent.status]).toEqual([2, undefined, undefined]);
    const second = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?limit=2&cursor=${page.pagination.cursor!}`, { key: keyA });
    const rest = second.body as typeof page;
    expect(rest.deliveries).toHaveLength(2);
    expect(rest.pagination.cursor).toBeNull();
    expect(new Set([...page.deliveries, ...rest.deliveries].map((d) => d.id)).size).toBe(4);
    const failed = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?status=failed`, { key: keyA });
    expect(fake.requests.get("listDeliveries")).toMatchObject({ limit: 20, status: "failed" });
    expect((failed.body as typeof page).deliveries).toEqual([expect.objectContaining({ lastError: "timeout after 10 s", lastResponseStatus: null, status: "failed" })]);
    const badCursor = await call("listWebhookDeliveries", `/webhooks/${webhook.id}/deliveries?cursor=garbage`, { key: keyA });
    expect(badCursor.status).toBe(400);
  });

  it("retries a delivery and sends a test event, answering the delivery", async () => {
    const { webhook } = await create();
    const failed = fake.delivery(webhook.id, "ticket.created", "failed");
    const retried = await call("retryWebhookDelivery", `/webhooks/${webhook.id}/deliveries/${failed.id}/retry`, { method: "POST", key: keyA });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: "pending", nextAttemptAt: "2026-11-24T10:15:00.000Z" });
    const unknown = await call("retryWebhookDelivery", `/webhooks/${webhook.id}/deliveries/${randomUUID()}/retry`, { method: "POST", key: keyA });
    expect(unknown.status).toBe(404);
    const test = await call("sendWebhookTestEvent", `/webhooks/${webhook.id}/test`, { method: "POST", key: keyA });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ webhookId: webhook.id, eventType: "webhook.test", eventId: null, status: "pending", attempts: 0 });
  });

  it("answers 503 with the error body when the webhooks service is down", async () => {
    fake.down = true;
    const response = await call("listWebhooks", "/webhooks", { key: keyA });
    expect(response.status).toBe(503);
    expect((response.body as { code: string }).code).toBe("unavailable");
    expect(response.text).not.toContain("10.1.2.3");
  });
});
