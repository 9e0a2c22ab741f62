// Registers REST operations by their operationId: method, path and whether an API key is
// needed all come from the OpenAPI document, so routes cannot drift from the contract, and
// each handler is typed from the same document (src/gen/openapi.ts): what it reads from
// `ctx.state.validated` and what it may answer.
import type { Middleware } from "koa";
import { idempotencyKey, takesIdempotencyKey } from "../middleware/idempotency.ts";
import compose from "koa-compose";
import { operations, getOperation } from "../openapi/operations.ts";
import type { OperationId, ResponseBody, SuccessStatus } from "../openapi/types.ts";
import { validateOperation } from "../openapi/validation.ts";
import type { GatewayMiddleware, GatewayRouter, OperationHandler } from "../types.ts";

export interface OperationOptions {
  /**
   * Middleware that runs before validation instead of the API key check and JSON body parsing,
   * in this order (public and player-side operations: abuse limits, session check, body).
   */
  before?: Middleware[];
}

export interface ApiRoutes {
  /**
   * Mounts `handler` for an operation behind: the API key check (unless the operation is
   * public), JSON body parsing (when it declares a body) and request validation. `Extra` is
   * the state that `options.before` adds for the handler.
   */
  operation<Id extends OperationId, Extra extends object = object>(operationId: Id, handler: OperationHandler<Id, Extra>, options?: OperationOptions): void;
  /** Throws, naming them, when operations of the document have no handler. */
  assertComplete(): void;
}

export interface ApiRoutesDeps {
  router: GatewayRouter;
  authenticate: Middleware;
  /** The API-key rate limits; runs right after `authenticate`. */
  rateLimit?: Middleware | undefined;
  jsonBody: Middleware;
}

export function createApiRoutes(deps: ApiRoutesDeps): ApiRoutes {
  const mounted = new Set<string>();
  return {
    operation(operationId, handler, options = {}) {
      const operation = getOperation(operationId);
      if (mounted.has(operationId)) throw new Error(`operation ${operationId} is mounted twice`);
      mounted.add(operationId);
      const chain: Middleware[] = [
        (ctx, next) => {
          ctx.state.operationId = operationId;
          return next();
        },
      ];
      if (options.before !== undefined) chain.push(...options.before);
      else {
        if (operation.authenticated) {
          chain.push(deps.authenticate);
          if (deps.rateLimit !== undefined) chain.push(deps.rateLimit);
        }
        if (operation.requestBody !== undefined) chain.push(deps.jsonBody);
      }
      chain.push(validateOperation(operationId));
      if (options.before === undefined && takesIdempotencyKey(operation)) chain.push(idempotencyKey(operation) as Middleware);
      // The casts from the handler's context to Koa's and the router's: validateOperation, just
      // before the handler, has checked the request against the document its type comes from.
      chain.push(handler as unknown as Middleware);
      // Composed once here: the router composes a route's middleware on every request, and one
      // function is cheaper to compose than five.
      deps.router.register(operation.routerPath, [operation.method.toUpperCase()], compose(chain) as GatewayMiddleware, { name: operationId });
    },
    assertComplete() {
      const missing = [...operations.keys()].filter((operationId) => !mounted.has(operationId));
      if (missing.length > 0) throw new Error(`operations without a handler: ${missing.join(", ")}`);
    },
  };
}

/**
 * Answers with a status the document declares for the operation and the body it declares
 * for that status (`""` for a response without content, such as a 307).
 */
export function respond<Id extends OperationId, Status extends SuccessStatus<Id>>(
  ctx: { state: { operationId: Id }; status: number; body: unknown },
  status: Status,
  body: ResponseBody<Id, Status>,
): void {
  ctx.status = status;
  ctx.body = body;
}
