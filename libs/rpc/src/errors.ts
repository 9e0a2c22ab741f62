// One mapping between the three error vocabularies: domain AppError codes (the public error
// codes), Connect codes on the wire between services, and HTTP statuses at the gateway.
//
// The rule for faults: an error a service raised on purpose carries its AppError code in the
// `x-error-code` metadata and keeps its message. Anything else that arrives from a call is a
// fault of the transport or of the other process and becomes a fixed text: a connection
// refused is 503 (nothing was applied), a connection lost, reset or cancelled mid-call is 503
// saying the outcome is unknown, a passed deadline is 504. Messages of libraries, drivers and
// sockets never reach a client.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { AppError, isAppError, type ErrorCode, type ErrorDetails } from "@support/errors";
import { ErrorDetailsSchema } from "@support/proto";
import { DEADLINE_MESSAGE, OUTCOME_UNKNOWN_MESSAGE, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, isDependencyUnavailable } from "./faults.ts";

const ERROR_CODE_METADATA = "x-error-code";
const INTERNAL_MESSAGE = "Internal error";
/** What a read (GET, HEAD) is told instead of the outcome-unknown texts: it changed nothing. */
const READ_DEADLINE_MESSAGE = "A dependency did not answer in time, try again later";

const connectCodeOf: Record<ErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  failed_precondition: Code.FailedPrecondition,
  not_found: Code.NotFound,
  unauthenticated: Code.Unauthenticated,
  permission_denied: Code.PermissionDenied,
  conflict: Code.Aborted,
  idempotency_key_in_use: Code.Aborted,
  idempotency_key_reused: Code.FailedPrecondition,
  payload_too_large: Code.ResourceExhausted,
  rate_limited: Code.ResourceExhausted,
  not_implemented: Code.Unimplemented,
  internal: Code.Internal,
  unavailable: Code.Unavailable,
  deadline_exceeded: Code.DeadlineExceeded,
};

// Connect codes that only a service's answer produces (Connect itself uses them for malformed
// requests); without the metadata they keep their message, as those texts name no internals.
const answerCodeOf: Partial<Record<Code, ErrorCode>> = {
  [Code.InvalidArgument]: "invalid_argument",
  [Code.OutOfRange]: "invalid_argument",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.NotFound]: "not_found",
  [Code.Unauthenticated]: "unauthenticated",
  [Code.PermissionDenied]: "permission_denied",
  [Code.AlreadyExists]: "conflict",
  [Code.ResourceExhausted]: "rate_limited",
  [Code.Unimplemented]: "not_implemented",
};

export const httpStatusOf: Record<ErrorCode, number> = {
  invalid_argument: 400,
  failed_precondition: 400,
  not_found: 404,
  unauthenticated: 403, // every authentication failure is a 403, like a missing permission
  permission_denied: 403,
  conflict: 409,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  rate_limited: 429,
  not_implemented: 501,
  internal: 500,
  unavailable: 503,
  deadline_exceeded: 504,
};

/** Turns a domain error into a Connect error that carries its code and details across the wire. */
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
  // The AppError code rides in metadata: several codes share one Connect code, and it tells a
  // deliberate answer (a conflict) from a transport fault with the same Connect code (Aborted).
  return new ConnectError(error.message, connectCodeOf[error.code], { [ERROR_CODE_METADATA]: error.code }, details);
}

function detailsOf(error: ConnectError): ErrorDetails | undefined {
  const [detail] = error.findDetails(ErrorDetailsSchema);
  if (!detail) return undefined;
  const details: ErrorDetails = { type: detail.type };
  if (detail.issues.length > 0) details.issues = detail.issues.map((i) => ({ path: i.path, message: i.message }));
  if (detail.payload) details.payload = detail.payload;
  return details;
}

function declaredCodeOf(error: ConnectError): ErrorCode | undefined {
  const declared = error.metadata.get(ERROR_CODE_METADATA);
  return declared !== null && declared in httpStatusOf ? (declared as ErrorCode) : undefined;
}

/**
 * Turns any error of a Connect call into an AppError (an AppError is returned as it is).
 * A service's deliberate answer keeps its code, message and details; a fault keeps nothing
 * of its own text (see the rule at the top of this file).
 */
export function connectToAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const connectError = ConnectError.from(error);
  const declared = declaredCodeOf(connectError);
  if (declared === "internal") return new AppError("internal", INTERNAL_MESSAGE);
  if (declared !== undefined) return new AppError(declared, connectError.rawMessage, detailsOf(connectError));
  switch (connectError.code) {
    case Code.DeadlineExceeded:
      return new AppError("deadline_exceeded", DEADLINE_MESSAGE);
    case Code.Unavailable:
      // Refused, unresolvable, or refused by the HTTP/2 server: the request was not handled.
      return new AppError("unavailable", UNAVAILABLE_MESSAGE);
    case Code.Aborted:
    case Code.Canceled:
    case Code.Unknown:
      // A reset connection, a cancelled stream, a process that died: the request may have
      // been handled. A conflict a service raised on purpose would carry the metadata.
      return new AppError("unavailable", OUTCOME_UNKNOWN_MESSAGE);
  }
  const answered = answerCodeOf[connectError.code];
  if (answered !== undefined) return new AppError(answered, connectError.rawMessage, detailsOf(connectError));
  return new AppError("internal", INTERNAL_MESSAGE);
}

/** The AppError a service answers for an error its handler threw. */
export function toServiceError(error: unknown): { error: AppError; fault: "none" | "unavailable" | "internal" } {
  if (isAppError(error)) return { error, fault: "none" };
  if (error instanceof ConnectError) return { error: connectToAppError(error), fault: "none" };
  if (isDependencyUnavailable(error)) return { error: new AppError("unavailable", UNAVAILABLE_MESSAGE), fault: "unavailable" };
  return { error: new AppError("internal", INTERNAL_MESSAGE), fault: "internal" };
}

export interface HttpErrorResponse {
  status: number;
  /** Retry-After on 503. */
  headers: Record<string, string>;
  body: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export interface HttpErrorOptions {
  /**
   * The request changes nothing (GET, HEAD): a fault cannot have half-applied it, so its
   * answer leaves out the "may or may not have been applied" warning.
   */
  readOnly?: boolean;
}

/** The public error body, status and headers for an error reaching the gateway edge. */
export function toHttpError(error: unknown, options: HttpErrorOptions = {}): HttpErrorResponse {
  let appError: AppError;
  if (isAppError(error) || error instanceof ConnectError) appError = connectToAppError(error);
  else if (isDependencyUnavailable(error)) appError = new AppError("unavailable", UNAVAILABLE_MESSAGE);
  else appError = new AppError("internal", INTERNAL_MESSAGE);
  let message = appError.code === "internal" ? INTERNAL_MESSAGE : appError.message;
  if (options.readOnly && message === OUTCOME_UNKNOWN_MESSAGE) message = UNAVAILABLE_MESSAGE;
  if (options.readOnly && message === DEADLINE_MESSAGE) message = READ_DEADLINE_MESSAGE;
  const body: HttpErrorResponse["body"] = { code: appError.code, message };
  if (appError.details) body.details = appError.details;
  const status = httpStatusOf[appError.code];
  const headers: Record<string, string> = status === 503 ? { "retry-after": String(RETRY_AFTER_SECONDS) } : {};
  return { status, headers, body };
}
