// ConsumeRateLimit: counts one request against each bucket in order. The first bucket over its
// limit refuses the request and the later ones are not charged, so one flooding client address
// (checked first) cannot use up the budget of the environment token it names.
import type { Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import { isWithinLimit, parseAddUsageInput, parseConsumeInput, type AddUsageInput, type ConsumeInput, type RateLimitDecision, type RateLimitTotal } from "./rate-limit.ts";
import { addUsages, incrementBuckets } from "./rate-limit.repository.ts";

export async function consumeRateLimit(db: Kysely<PlayersDatabase>, input: ConsumeInput): Promise<RateLimitDecision> {
  const { windowSeconds, buckets } = parseConsumeInput(input);
  // One statement of single-bucket upserts, each atomic on its own; a bucket is counted only
  // while the earlier ones are within their limits.
  const counts = await incrementBuckets(db, buckets, windowSeconds);
  let retryAfterSeconds = windowSeconds;
  for (const [index, bucket] of buckets.entries()) {
    const counted = counts[index];
    if (counted === undefined) break;
    retryAfterSeconds = counted.retryAfterSeconds;
    if (!isWithinLimit(counted.count, bucket.limit)) return { allowed: false, exceededKey: bucket.key, retryAfterSeconds };
  }
  return { allowed: true, exceededKey: undefined, retryAfterSeconds };
}

/**
 * AddRateLimitUsage: a gateway replica's requests since its previous sync, added to the shared
 * counters; the totals tell it what every replica has used. Admission is the gateway's.
 */
export async function addRateLimitUsage(db: Kysely<PlayersDatabase>, input: AddUsageInput, nowSeconds = Date.now() / 1000): Promise<RateLimitTotal[]> {
  const { windowSeconds, usages } = parseAddUsageInput(input, nowSeconds);
  return addUsages(db, windowSeconds, usages);
}
