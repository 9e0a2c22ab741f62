// JSON request bodies (co-body), for the operations that declare one. Refusals follow D3:
// over the limit 413 payload_too_large, malformed JSON 400, a body that is not declared as
// JSON 400 (not 415: D3 has no code for it and the OpenAPI document declares 400 for
// every bad request).
import { AppError } from "@support/errors";
import parse from "co-body";
import type { Middleware } from "koa";

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers["transfer-encoding"] !== undefined) return true;
  const length = headers["content-length"];
  return typeof length === "string" && length !== "0" && length !== "";
}

export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (!hasBody(ctx.headers)) return next();
    if (!ctx.is("application/json")) {
      throw new AppError("invalid_argument", "The request body must be JSON, sent with Content-Type: application/json");
    }
    let body: unknown;
    try {
      body = await parse.json(ctx, { limit: limitBytes, strict: false });
    } catch (error) {
      throw bodyError(error, limitBytes);
    }
    (ctx.request as { body?: unknown }).body = body;
    return next();
  };
}

function bodyError(error: unknown, limitBytes: number): unknown {
  const { type, status } = (error ?? {}) as { type?: string; status?: number };
  if (type === "entity.too.large" || status === 413) {
    return new AppError("payload_too_large", `The request body is larger than ${limitBytes} bytes`);
  }
  if (error instanceof SyntaxError) return new AppError("invalid_argument", `Malformed JSON in the request body: ${error.message}`);
  if (type === "encoding.unsupported" || status === 415) {
    return new AppError("invalid_argument", "Unsupported content encoding or charset of the request body");
  }
  if (type === "request.aborted" || type === "request.size.invalid") {
    return new AppError("invalid_argument", "The request body is incomplete");
  }
  return error;
}
