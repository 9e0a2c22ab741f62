// Pages of the settings' lists (blocked players, scheduled deletions): a page size from 1 to 100
// and an opaque cursor naming the last row of the previous page by its sort time and id, so that
// a page reads on from there whatever was added or removed meanwhile. The rules only.
import { isUuid, validationError } from "@support/errors";

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** The row a page continues after: its sort time and id. */
export interface PagePosition {
  at: Date;
  id: string;
}

export function pageSize(requested: number): number {
  if (requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    throw validationError([{ path: "/query/limit", message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return requested;
}

export function encodeCursor(position: PagePosition): string {
  return Buffer.from(`${position.at.toISOString()}|${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names; nothing for an empty cursor (the first page). */
export function decodeCursor(cursor: string): PagePosition | undefined {
  if (cursor === "") return undefined;
  const [time, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const at = new Date(time ?? "");
  if (rest.length > 0 || id === undefined || !isUuid(id) || Number.isNaN(at.getTime())) {
    throw validationError([{ path: "/query/cursor", message: "is not a cursor of this list" }]);
  }
  return { at, id: id.toLowerCase() };
}
