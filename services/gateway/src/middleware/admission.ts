// Admission at the gateway's door: at most so many requests in progress at once, reads (GET,
// HEAD, OPTIONS) and writes counted apart so that a flood of one never refuses the other. A
// request over its limit is refused before anything of it is read or checked (no body, no
// API key, no rate-limit count, no call): 503 with Retry-After, in microseconds, so that a
// flood costs the gateway almost nothing beyond the work it admitted. Health and readiness
// probes and the long-lived event streams are never counted. The calls the admitted requests
// make are bounded again per service (libs/rpc admission.ts).
import { httpAdmissionRefusals, type Registry } from "@support/metrics";
import { BUSY_MESSAGE } from "@support/errors";
import { RETRY_AFTER_SECONDS } from "@support/rpc";
import type { Middleware } from "koa";
import { HttpProblem } from "./errors.ts";

export interface RequestAdmissionSettings {
  /** Reads in progress at once; 0: no limit. */
  maxReads: number;
  /** Writes in progress at once; 0: no limit. */
  maxWrites: number;
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Requests never counted: probes (they must answer whatever the load) and event streams (open for hours). */
export function isUncounted(path: string): boolean {
  return path === "/healthz" || path === "/readyz" || path.startsWith("/healthz/") || path.endsWith("/stream");
}

export function requestAdmission(settings: RequestAdmissionSettings, registry?: Registry): Middleware {
  const refused = registry && httpAdmissionRefusals(registry);
  const inProgress = { read: 0, write: 0 };
  return async (ctx, next) => {
    if (isUncounted(ctx.path)) return next();
    const kind = READS.has(ctx.method) ? "read" : "write";
    const limit = kind === "read" ? settings.maxReads : settings.maxWrites;
    if (limit <= 0) return next();
    if (inProgress[kind] >= limit) {
      refused?.inc({ kind });
      throw new HttpProblem(503, "unavailable", BUSY_MESSAGE, { "Retry-After": String(RETRY_AFTER_SECONDS) });
    }
    inProgress[kind] += 1;
    try {
      await next();
    } finally {
      inProgress[kind] -= 1;
    }
  };
}
