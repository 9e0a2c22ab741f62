// Opaque GET /tickets cursors: the keyset position of the last ticket of a page, bound
// to the scan's order and to the company by an HMAC. A cursor that was altered, belongs to
// another company or is used with the other order is refused; nothing in it can select
// another company's rows (the company always comes from the caller, never from the cursor).
//
// Format: base64url(JSON {"v":1,"o":"asc"|"desc","k":[sort time ISO, runningId]}) "." base64url(HMAC-SHA256[0..16])
// where the HMAC covers the company id and the payload. A scan sorted by last activity (the
// agent lists) adds "s":"lastActivityAt"; a creation-order cursor has no "s", so the public
// list's cursors are unchanged.
import { createHmac, timingSafeEqual } from "node:crypto";

export type ListOrder = "asc" | "desc";

/** What a scan is sorted by (then by running id). */
export type ListSort = "createdAt" | "lastActivityAt" | "slaDueAt";

/**
 * The position after which (asc) or before which (desc) the next page starts. `createdAt` is
 * the sort time: the creation time, or the last activity for a scan sorted by it.
 */
export interface CursorKey {
  createdAt: Date;
  runningId: number;
}

const VERSION = 1;
const MAC_BYTES = 16;

function mac(secret: string, companyId: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(`${companyId}\n${payload}`).digest().subarray(0, MAC_BYTES);
}

/** The key of a ticket without an SLA due time in a cursor of a list sorted by it. */
const NO_DUE = "infinity";

export function encodeCursor(secret: string, companyId: string, order: ListOrder, key: CursorKey, sort: ListSort = "createdAt"): string {
  const time = key.createdAt.getTime() >= 8.64e15 ? NO_DUE : key.createdAt.toISOString();
  const body = { v: VERSION, o: order, k: [time, key.runningId], ...(sort === "createdAt" ? {} : { s: sort }) };
  const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
  return `${payload}.${mac(secret, companyId, payload).toString("base64url")}`;
}

export type CursorDecoding = { ok: true; key: CursorKey } | { ok: false; reason: string };

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function decodeCursor(secret: string, companyId: string, order: ListOrder, cursor: string, sort: ListSort = "createdAt"): CursorDecoding {
  const invalid: CursorDecoding = { ok: false, reason: "is not a cursor returned for this query; start a new scan without it" };
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature)) {
    return invalid;
  }
  const given = Buffer.from(signature, "base64url");
  const expected = mac(secret, companyId, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return invalid;
  }
  const { v, o, k, s = "createdAt" } = (parsed ?? {}) as { v?: unknown; o?: unknown; k?: unknown; s?: unknown };
  if (v !== VERSION || (o !== "asc" && o !== "desc") || !Array.isArray(k) || k.length !== 2) return invalid;
  if (s !== "createdAt" && s !== "lastActivityAt" && s !== "slaDueAt") return invalid;
  if (o !== order) return { ok: false, reason: `was obtained with order=${o}; use it with the same order` };
  if (s !== sort) return { ok: false, reason: `was obtained with sort=${s}; use it with the same sort` };
  const [createdAt, runningId] = k as [unknown, unknown];
  if (typeof createdAt !== "string" || (!isoMillis.test(createdAt) && createdAt !== NO_DUE) || !Number.isSafeInteger(runningId) || (runningId as number) < 1) {
    return invalid;
  }
  // A ticket without an SLA clock sorts after every due time: its key is "infinity".
  const date = createdAt === NO_DUE ? new Date(8.64e15) : new Date(createdAt);
  if (Number.isNaN(date.getTime())) return invalid;
  return { ok: true, key: { createdAt: date, runningId: runningId as number } };
}
