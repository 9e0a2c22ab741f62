// Koa context types shared by the gateway's middleware and routes.
import type { Router, RouterContext } from "@koa/router";
import type { DefaultContext, Middleware } from "koa";
import type { ApiKeyIdentity } from "./auth.ts";
import type { OperationId, SuccessBody, Validated } from "./openapi/types.ts";
import type { ValidatedRequest } from "./openapi/validation.ts";

export interface GatewayState {
  /** The API key's company; set by the auth middleware on authenticated routes. */
  companyId: string;
  /** The API key that authenticated the request (actions without a userId are attributed to it). */
  apiKeyId: string;
  /** The key's identity as authenticated (with its rate limits); set by the auth middleware. */
  apiKey: ApiKeyIdentity;
  /** Set by `validateOperation`: coerced params, query and body. */
  validated: ValidatedRequest;
}

export type GatewayContext = RouterContext<GatewayState>;
export type GatewayRouter = Router<GatewayState>;
export type GatewayMiddleware = Middleware<GatewayState, GatewayContext>;

/** The state an operation's handler sees: the request as the document types it for that operation. */
export type OperationState<Id extends OperationId> = Omit<GatewayState, "validated"> & {
  /** The operation being served (set when the route is mounted). */
  operationId: Id;
  validated: Validated<Id>;
};

/**
 * The context of an operation's handler. `Extra` is state that the operation's own
 * middleware adds before it (the player side's session). `ctx.body` only takes a success
 * body of the document; `respond` also pairs it with its status.
 */
export type OperationContext<Id extends OperationId, Extra extends object = object> = RouterContext<OperationState<Id> & Extra, DefaultContext, SuccessBody<Id>>;

export type OperationHandler<Id extends OperationId, Extra extends object = object> = (ctx: OperationContext<Id, Extra>) => Promise<void> | void;

declare module "koa" {
  interface Request {
    /** The parsed JSON body, set by the JSON body middleware; undefined when the request had none. */
    body?: unknown;
  }
}
