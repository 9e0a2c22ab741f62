// ConsumeRateLimit: counts one request against each bucket in order. The first bucket over its
// limit refuses the request and the later ones are not charged, so one flooding client address
// (checked first) cannot use up the budget of the environment token it names.
import type { Kysely } from "@support/db";
import type { PlayersDatabase } from "../database.ts";
import { isWithinLimit, parseAddUsageInput, parseConsumeInput, type AddUsageInput, type ConsumeInput, type RateLimitDecision, type RateLimitTotal } from "./rate-limit.ts";
import { addUsages, incrementBucket } from "./rate-limit.repository.ts";

export async function consumeRateLimit(db: Kysely<PlayersDatabase>, input: ConsumeInput): Promise<RateLimitDecision> {
  const { windowSeconds, buckets } = parseConsumeInput(input);
  let retryAfterSeconds = windowSeconds;
  // Sequential single-statement upserts, no transaction: each increment is atomic on its own
  // and no row lock is held while the next bucket is counted.
  for (const bucket of buckets) {
    const { count, retryAfterSeconds: untilWindowEnd } = await incrementBucket(db, bucket.key, windowSeconds);
    retryAfterSeconds = untilWindowEnd;
    if (!isWithinLimit(count, bucket.limit)) return { allowed: false, exceededKey: bucket.key, retryAfterSeconds };
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
