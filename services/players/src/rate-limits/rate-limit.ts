// Fixed-window rate limiting (the abuse limits of the public endpoints) as the players service keeps it for the gateway:
// counters per (bucket key, window), windows aligned to the epoch on the database clock so that
// every replica agrees. Rules only: the request's shape and the decision.
import { validationError, type ValidationIssue } from "@support/errors";

export const MAX_BUCKETS = 8;
export const MAX_BUCKET_KEY_LENGTH = 256;
export const MAX_WINDOW_SECONDS = 86_400;

export interface RateLimitBucket {
  key: string;
  limit: number;
}

export interface ConsumeInput {
  windowSeconds: number;
  buckets: RateLimitBucket[];
}

export interface BucketCount {
  count: number;
  /** Seconds until the bucket's current window ends, at least 1. */
  retryAfterSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  exceededKey: string | undefined;
  retryAfterSeconds: number;
}

export function parseConsumeInput(input: ConsumeInput): ConsumeInput {
  const issues: ValidationIssue[] = [];
  if (!Number.isInteger(input.windowSeconds) || input.windowSeconds < 1 || input.windowSeconds > MAX_WINDOW_SECONDS) {
    issues.push({ path: "/windowSeconds", message: `must be an integer from 1 to ${MAX_WINDOW_SECONDS}` });
  }
  if (input.buckets.length === 0 || input.buckets.length > MAX_BUCKETS) issues.push({ path: "/buckets", message: `must have 1 to ${MAX_BUCKETS} buckets` });
  const keys = new Set<string>();
  input.buckets.forEach((bucket, index) => {
    if (bucket.key === "" || bucket.key.length > MAX_BUCKET_KEY_LENGTH) issues.push({ path: `/buckets/${index}/key`, message: `must be 1 to ${MAX_BUCKET_KEY_LENGTH} characters` });
    else if (keys.has(bucket.key)) issues.push({ path: `/buckets/${index}/key`, message: "is given twice" });
    keys.add(bucket.key);
    if (!Number.isInteger(bucket.limit) || bucket.limit < 1) issues.push({ path: `/buckets/${index}/limit`, message: "must be a positive integer" });
  });
  if (issues.length > 0) throw validationError(issues);
  return input;
}

/** A request is allowed while the count, this request included, stays within the limit. */
export function isWithinLimit(count: number, limit: number): boolean {
  return count <= limit;
}
