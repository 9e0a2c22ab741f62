import { Router } from "@koa/router";
import { describe, expect, it } from "vitest";
import { operations } from "../openapi/operations.ts";
import type { OperationId } from "../openapi/types.ts";
import type { GatewayState } from "../types.ts";
import { createApiRoutes } from "./api.ts";

const pass = async (_ctx: unknown, next: () => Promise<unknown>) => {
  await next();
};

function api() {
  return createApiRoutes({ router: new Router<GatewayState>(), authenticate: pass, jsonBody: pass });
}

describe("operations of the document", () => {
  it("refuses to start while an operation has no handler, naming it", () => {
    const routes = api();
    routes.operation("listGames", () => undefined);
    expect(() => routes.assertComplete()).toThrow(/operations without a handler: .*listTags/);
    expect(() => routes.assertComplete()).not.toThrow(/listGames/);
  });

  it("is complete once every operation has a handler", () => {
    const routes = api();
    // The index is keyed by plain strings; every key is an operationId of the same document.
    for (const operationId of operations.keys()) routes.operation(operationId as OperationId, () => undefined);
    expect(() => routes.assertComplete()).not.toThrow();
  });

  it("refuses an operation mounted twice", () => {
    const routes = api();
    routes.operation("listGames", () => undefined);
    expect(() => routes.operation("listGames", () => undefined)).toThrow("operation listGames is mounted twice");
  });
});
