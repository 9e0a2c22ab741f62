import type { components } from "./gen/openapi.ts";

/** The JSON body of every error answer of the API (`code`, `message`, sometimes `details`). */
export type ErrorBody = components["schemas"]["Error"];

/** An answer other than 2xx, thrown by `unwrap` and the ticket iterators. */
export class SupportApiError extends Error {
  override readonly name = "SupportApiError";
  readonly status: number;
  /** The error body as answered (the API's `Error` shape); undefined when the answer had no such body. */
  readonly body: ErrorBody | undefined;
  /** The answer's `x-request-id`, to quote when reporting a problem. */
  readonly requestId: string | null;

  constructor(response: Response, body: unknown) {
    const error = isErrorBody(body) ? body : undefined;
    super(`${response.status} ${error ? `${error.code}: ${error.message}` : response.statusText || "error"}`);
    this.status = response.status;
    this.body = error;
    this.requestId = response.headers.get("x-request-id");
  }

  /** The API's stable error code (`invalid_argument`, `not_found`, ...), if the body had one. */
  get code(): ErrorBody["code"] | undefined {
    return this.body?.code;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string";
}

/** The data of a successful call, or a thrown `SupportApiError` with the error body. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const result = await call;
  if (!result.response.ok) throw new SupportApiError(result.response, result.error);
  return result.data as T;
}
