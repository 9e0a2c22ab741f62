// JSON request bodies (co-body), for the operations that declare one. Refusals use the
// public error body: over the limit 413 payload_too_large, malformed JSON 400, a body that is
// not declared as JSON 400 (the OpenAPI document declares 400 for every bad request), a body
// whose bytes are not what its Content-Encoding says (corrupt gzip, deflate or br) 400, and a
// Content-Encoding we cannot decode 415 unsupported_media_type.
import { AppError } from "@support/errors";
import parse from "co-body";
import type { Middleware } from "koa";
import { HttpProblem } from "./errors.ts";

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
      throw bodyError(error, limitBytes, ctx.get("content-encoding"));
    }
    (ctx.request as { body?: unknown }).body = body;
    return next();
  };
}

/** What a failure to read the body answers: a public error, or the error itself when it is ours. */
export function bodyError(error: unknown, limitBytes: number, encoding: string): unknown {
  const { type, status, code } = (error ?? {}) as { type?: string; status?: number; code?: string };
  if (type === "entity.too.large" || status === 413) {
    return new AppError("payload_too_large", `The request body is larger than ${limitBytes} bytes`);
  }
  if (error instanceof SyntaxError) return new AppError("invalid_argument", `Malformed JSON in the request body: ${error.message}`);
  // raw-body's "encoding" is the charset; inflation's 415 (no type) is the Content-Encoding.
  if (type === "encoding.unsupported") {
    return new AppError("invalid_argument", "Unsupported charset of the request body");
  }
  if (status === 415) {
    return new HttpProblem(415, "unsupported_media_type", "Unsupported Content-Encoding of the request body; send it as gzip, deflate, br or identity");
  }
  // zlib's own errors (Z_DATA_ERROR, Z_BUF_ERROR, ...) and brotli's (ERR__ERROR_FORMAT_...,
  // ERR_BROTLI_...): the bytes are not what the header says.
  if (typeof code === "string" && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(code)) {
    return new AppError("invalid_argument", `The request body is not valid ${encoding || "compressed"} data`);
  }
  // The client went away before or while the body was read ("stream.not.readable" when the
  // request stream was already closed): nobody reads the answer, and it is no server fault.
  if (type === "request.aborted" || type === "request.size.invalid" || type === "stream.not.readable") {
    return new AppError("invalid_argument", "The request body is incomplete");
  }
  return error;
}
