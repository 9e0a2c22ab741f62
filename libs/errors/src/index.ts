// Errors that domain code raises without knowing about HTTP or RPC, and the value checks
// (email, uuid) whose failures become its validation issues. The `code` values are the stable
// machine strings of the public error body; libs/rpc carries them over Connect and the gateway
// turns them into HTTP statuses.

export { isEmail, isUuid } from "./validation.ts";

export const errorCodes = [
  "invalid_argument",
  "failed_precondition",
  "not_found",
  "unauthenticated",
  "permission_denied",
  "conflict",
  /** The Idempotency-Key's first request is still being handled (409). */
  "idempotency_key_in_use",
  /** The Idempotency-Key was used before for a different request (422). */
  "idempotency_key_reused",
  "payload_too_large",
  "rate_limited",
  "not_implemented",
  "internal",
  "unavailable",
  /** The request's deadline passed before a dependency answered (504). */
  "deadline_exceeded",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/**
 * The message of an `unavailable` refusal for load (admission control at the gateway's door, per
 * service, at a database pool): refused before any work, so repeating it is safe.
 */
export const BUSY_MESSAGE = "The service is busy; nothing was done. Retry shortly";

export interface ValidationIssue {
  path: string;
  message: string;
}

export interface ErrorDetails {
  type: string;
  issues?: ValidationIssue[];
  payload?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** A 400 naming each invalid input by JSON pointer (details type VALIDATION_ERROR). */
export function validationError(issues: ValidationIssue[], message = "Request validation failed"): AppError {
  return new AppError("invalid_argument", message, { type: "VALIDATION_ERROR", issues });
}

export function notFound(message: string): AppError {
  return new AppError("not_found", message);
}

export function conflict(message: string): AppError {
  return new AppError("conflict", message);
}

export function permissionDenied(message: string): AppError {
  return new AppError("permission_denied", message);
}

export function unauthenticated(message = "A valid API key is required"): AppError {
  return new AppError("unauthenticated", message);
}

/** A business rejection: 400 failed_precondition with typed details. */
export function failedPrecondition(message: string, details: ErrorDetails): AppError {
  return new AppError("failed_precondition", message, details);
}
