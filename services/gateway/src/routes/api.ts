// Registers REST operations by their operationId: method, path and whether an API key is
// needed all come from the OpenAPI document, so routes cannot drift from the contract.
import type { Middleware } from "koa";
import { operations, getOperation, type Operation } from "../openapi/operations.ts";
import { validateOperation } from "../openapi/validation.ts";
import type { GatewayMiddleware, GatewayRouter } from "../types.ts";

export interface ApiRoutes {
  /**
   * Mounts `handler` for an operation behind: the API key check (unless the operation is
   * public), JSON body parsing (when it declares a body) and request validation.
   */
  operation(operationId: string, handler: GatewayMiddleware, options?: { validate?: boolean }): void;
  /** Operations of the document that no route file has mounted yet. */
  unhandled(): Operation[];
}

export interface ApiRoutesDeps {
  router: GatewayRouter;
  authenticate: Middleware;
  jsonBody: Middleware;
}

export function createApiRoutes(deps: ApiRoutesDeps): ApiRoutes {
  const mounted = new Set<string>();
  return {
    operation(operationId, handler, options = {}) {
      const operation = getOperation(operationId);
      if (mounted.has(operationId)) throw new Error(`operation ${operationId} is mounted twice`);
      mounted.add(operationId);
      const validate = options.validate ?? true;
      const chain: Middleware[] = [];
      if (operation.authenticated) chain.push(deps.authenticate);
      if (validate && operation.requestBody !== undefined) chain.push(deps.jsonBody);
      if (validate) chain.push(validateOperation(operationId));
      chain.push(handler as Middleware);
      deps.router.register(operation.routerPath, [operation.method.toUpperCase()], chain as GatewayMiddleware[], { name: operationId });
    },
    unhandled() {
      return [...operations.values()].filter((operation) => !mounted.has(operation.operationId));
    },
  };
}
