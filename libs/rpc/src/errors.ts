// One mapping between the three error vocabularies: domain AppError codes (D3 strings),
// Connect codes on the wire between services, and HTTP statuses at the gateway.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { AppError, type ErrorCode, type ErrorDetails } from "@support/errors";
import { ErrorDetailsSchema } from "@support/proto";

const connectCodeOf: Record<ErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  failed_precondition: Code.FailedPrecondition,
  not_found: Code.NotFound,
  unauthenticated: Code.Unauthenticated,
  permission_denied: Code.PermissionDenied,
  conflict: Code.Aborted,
  payload_too_large: Code.ResourceExhausted,
  rate_limited: Code.ResourceExhausted,
  not_implemented: Code.Unimplemented,
  internal: Code.Internal,
  unavailable: Code.Unavailable,
};

const errorCodeOf: Partial<Record<Code, ErrorCode>> = {
  [Code.InvalidArgument]: "invalid_argument",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.NotFound]: "not_found",
  [Code.Unauthenticated]: "unauthenticated",
  [Code.PermissionDenied]: "permission_denied",
  [Code.Aborted]: "conflict",
  [Code.AlreadyExists]: "conflict",
  [Code.ResourceExhausted]: "rate_limited",
  [Code.Unimplemented]: "not_implemented",
  [Code.Unavailable]: "unavailable",
  [Code.DeadlineExceeded]: "unavailable",
};

export const httpStatusOf: Record<ErrorCode, number> = {
  invalid_argument: 400,
  failed_precondition: 400,
  not_found: 404,
  unauthenticated: 403, // D2: every authentication failure is a 403
  permission_denied: 403,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  not_implemented: 501,
  internal: 500,
  unavailable: 503,
};

/** Turns a domain error into a Connect error that carries its details across the wire. */
export function appErrorToConnect(error: AppError): ConnectError {
  const details = error.details
    ? [
        {
          desc: ErrorDetailsSchema,
          value: create(ErrorDetailsSchema, {
            type: error.details.type,
            issues: error.details.issues ?? [],
            payload: error.details.payload as JsonObject | undefined,
          }),
        },
      ]
    : [];
  // The AppError code rides in metadata because several D3 codes share one Connect code.
  return new ConnectError(error.message, connectCodeOf[error.code], { "x-error-code": error.code }, details);
}

/**
 * Turns any error from a Connect call back into an AppError. Errors that carry no domain
 * meaning (a refused connection, an internal failure) keep no message from the other side:
 * internal addresses and stack traces must not reach a client.
 */
export function connectToAppError(error: unknown): AppError {
  const connectError = ConnectError.from(error);
  const declared = connectError.metadata.get("x-error-code") as ErrorCode | null;
  const code = declared && declared in httpStatusOf ? declared : (errorCodeOf[connectError.code] ?? "internal");
  if (code === "internal") return new AppError("internal", "Internal error");
  if (code === "unavailable") return new AppError("unavailable", "A dependency is unavailable, try again later");
  const [detail] = connectError.findDetails(ErrorDetailsSchema);
  let details: ErrorDetails | undefined;
  if (detail) {
    details = { type: detail.type };
    if (detail.issues.length > 0) details.issues = detail.issues.map((i) => ({ path: i.path, message: i.message }));
    if (detail.payload) details.payload = detail.payload;
  }
  return new AppError(code, connectError.rawMessage, details);
}

export interface HttpErrorResponse {
  status: number;
  body: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** The D3 error body and status for an error reaching the gateway edge. */
export function toHttpError(error: unknown): HttpErrorResponse {
  const appError = error instanceof AppError ? error : error instanceof ConnectError ? connectToAppError(error) : undefined;
  if (!appError) return { status: 500, body: { code: "internal", message: "Internal error" } };
  const body: HttpErrorResponse["body"] = { code: appError.code, message: appError.message };
  if (appError.details) body.details = appError.details;
  return { status: httpStatusOf[appError.code], body };
}
