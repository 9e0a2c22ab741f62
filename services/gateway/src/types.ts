// Koa context types shared by the gateway's middleware and routes.
import type { Router, RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import type { ValidatedRequest } from "./openapi/validation.ts";

export interface GatewayState {
  /** The API key's company; set by the auth middleware on authenticated routes. */
  companyId: string;
  /** The API key that authenticated the request (actions without a userId are attributed to it). */
  apiKeyId: string;
  /** Set by `validateOperation`: coerced params, query and body. */
  validated: ValidatedRequest;
}

export type GatewayContext = RouterContext<GatewayState>;
export type GatewayRouter = Router<GatewayState>;
export type GatewayMiddleware = Middleware<GatewayState, GatewayContext>;
