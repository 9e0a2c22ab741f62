import { describe, expect, it } from "vitest";
import { requestFingerprint } from "@support/idempotency";
import { openapiDocument } from "../openapi/openapi.ts";
import { operations } from "../openapi/operations.ts";
import { takesIdempotencyKey } from "./idempotency.ts";

type Json = Record<string, unknown>;
const KEY_PARAMETER = "#/components/parameters/IdempotencyKey";

describe("Idempotency-Key in the document", () => {
  const rawOperation = (path: string, method: string) => ((openapiDocument as Json).paths as Record<string, Record<string, Json>>)[path]![method]!;

  it("is taken by exactly the API key's POST and DELETE operations, which declare it, the replay header, 409 and 422", () => {
    const taking = [...operations.values()].filter(takesIdempotencyKey).map((operation) => operation.operationId).sort();
    expect(taking).toEqual(
      [
        "createAttachment", "createTicket", "createWebhook", "deleteGameAnnouncement", "deletePlayer", "deleteSharedAnnouncement", "deleteWebhook",
        "performTicketActions", "retryWebhookDelivery", "rotateWebhookSecret", "schedulePlayerDeletion", "sendWebhookTestEvent",
      ].sort(),
    );
    // The agent API's actions take it too, mounted by their route (the principal is the session's user).
    const keyedAgentOperations = new Set(["performAgentTicketActions", "createAgentTicketAttachment", "answerAgentIncident"]);
    for (const operation of operations.values()) {
      const keyed = takesIdempotencyKey(operation) || keyedAgentOperations.has(operation.operationId);
      const declared = (operation.parameters ?? []).some((parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key");
      expect(declared, operation.operationId).toBe(keyed);
      if (!keyed) continue;
      const raw = rawOperation(operation.path, operation.method);
      expect((raw.parameters as Json[]).some((parameter) => parameter.$ref === KEY_PARAMETER)).toBe(true);
      expect([...operation.responses.keys()]).toEqual(expect.arrayContaining(["400", "409", "422"]));
      const success = (raw.responses as Record<string, Json>)["200"]!;
      const headers = (success.$ref === "#/components/responses/IdempotentSuccess" ? ((openapiDocument as Json).components as Json).responses : undefined) as
        | Record<string, Json>
        | undefined;
      const successHeaders = (headers?.IdempotentSuccess?.headers ?? success.headers) as Json;
      expect(Object.keys(successHeaders), operation.operationId).toContain("Idempotent-Replayed");
    }
  });
});

describe("requestFingerprint", () => {
  const base = { method: "post", route: "/tickets/{ticketId}/actions", params: { ticketId: "t-1" }, query: {}, body: { actions: [{ type: "addTags", tagNames: ["a"] }] } };

  it("ignores property order and method case, and tells apart every part of the request", () => {
    const fingerprint = requestFingerprint(base);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...base, method: "POST", body: { actions: [{ tagNames: ["a"], type: "addTags" }] } })).toBe(fingerprint);
    for (const changed of [
      { ...base, method: "delete" },
      { ...base, route: "/tickets" },
      { ...base, params: { ticketId: "t-2" } },
      { ...base, query: { limit: 1 } },
      { ...base, body: { actions: [{ type: "addTags", tagNames: ["b"] }] } },
      { ...base, body: { actions: [{ type: "addTags", tagNames: ["a"] }, { type: "addTags", tagNames: ["a"] }] } },
    ]) {
      expect(requestFingerprint(changed)).not.toBe(fingerprint);
    }
  });

  it("tells apart the same request from two principals, and is unchanged without one", () => {
    const fingerprint = requestFingerprint(base);
    expect(requestFingerprint({ ...base, principal: undefined })).toBe(fingerprint);
    const byAda = requestFingerprint({ ...base, principal: "ada" });
    expect(byAda).not.toBe(fingerprint);
    expect(requestFingerprint({ ...base, principal: "bea" })).not.toBe(byAda);
    expect(requestFingerprint({ ...base, principal: "ada" })).toBe(byAda);
  });
});
