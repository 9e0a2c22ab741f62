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

/** Most usages in one AddRateLimitUsage call (a replica's buckets active in one sync). */
export const MAX_USAGES = 10_000;
/** Most requests one usage may add: far above what a replica answers between two syncs. */
export const MAX_DELTA = 1_000_000;

export interface RateLimitUsage {
  key: string;
  /** Start of the window in seconds since the epoch. */
  windowStart: number;
  delta: number;
}

export interface AddUsageInput {
  windowSeconds: number;
  usages: RateLimitUsage[];
}

export interface RateLimitTotal {
  key: string;
  windowStart: number;
  total: number;
}

/**
 * Checks a batch of usages: windows aligned to their length and not far from now (the previous,
 * current or next window: a replica's clock may be a little off, and a sync may carry the last
 * counts of a window that just ended), so that no row outlives its window by much.
 */
export function parseAddUsageInput(input: AddUsageInput, nowSeconds: number): AddUsageInput {
  const issues: ValidationIssue[] = [];
  const { windowSeconds } = input;
  const windowOk = Number.isInteger(windowSeconds) && windowSeconds >= 1 && windowSeconds <= MAX_WINDOW_SECONDS;
  if (!windowOk) issues.push({ path: "/windowSeconds", message: `must be an integer from 1 to ${MAX_WINDOW_SECONDS}` });
  if (input.usages.length === 0 || input.usages.length > MAX_USAGES) issues.push({ path: "/usages", message: `must have 1 to ${MAX_USAGES} usages` });
  const current = windowOk ? Math.floor(nowSeconds / windowSeconds) * windowSeconds : 0;
  input.usages.forEach((usage, index) => {
    if (usage.key === "" || usage.key.length > MAX_BUCKET_KEY_LENGTH) issues.push({ path: `/usages/${index}/key`, message: `must be 1 to ${MAX_BUCKET_KEY_LENGTH} characters` });
    if (!Number.isInteger(usage.delta) || usage.delta < 0 || usage.delta > MAX_DELTA) issues.push({ path: `/usages/${index}/delta`, message: `must be an integer from 0 to ${MAX_DELTA}` });
    if (windowOk && (!Number.isSafeInteger(usage.windowStart) || usage.windowStart % windowSeconds !== 0 || Math.abs(usage.windowStart - current) > windowSeconds)) {
      issues.push({ path: `/usages/${index}/windowStart`, message: "must be the start of the previous, current or next window" });
    }
  });
  if (issues.length > 0) throw validationError(issues);
  return input;
}
