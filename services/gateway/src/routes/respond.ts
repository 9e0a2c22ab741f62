// Response helpers shared by the route files.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Context } from "koa";
import type { CoalescingCache } from "../cache.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** Sends an already serialized JSON body (the cached form of reference reads). */
export function sendJson(ctx: Context, json: string): void {
  ctx.set("Content-Type", JSON_TYPE);
  ctx.body = json;
}

/**
 * Sends the company's cached JSON for a reference read, loading it on a miss. A hit stays
 * synchronous: no promise, no RPC, no serialization.
 */
export async function sendCached(ctx: Context, cache: CoalescingCache<string>, companyId: string, load: (companyId: string) => Promise<string>): Promise<void> {
  const found = cache.get(companyId, load);
  sendJson(ctx, typeof found === "string" ? found : await found);
}

/** RFC 3339 date-time of a protobuf Timestamp; content always sets them, so absence is a bug (500). */
export function isoTimestamp(timestamp: Timestamp | undefined, what: string): string {
  if (timestamp === undefined) throw new Error(`content returned no ${what}`);
  return timestampDate(timestamp).toISOString();
}
