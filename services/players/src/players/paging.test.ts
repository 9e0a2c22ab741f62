// The settings' page rules: page sizes and cursors that name a row by its sort time and id.
import { describe, expect, it } from "vitest";
import { isAppError } from "@support/errors";
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, pageSize } from "./paging.ts";

const issuePaths = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (isAppError(error)) return error.details?.issues?.map((issue) => issue.path);
    throw error;
  }
  return undefined;
};

describe("pages of the settings' lists", () => {
  it("takes 1 to 100 rows a page, the default for none", () => {
    expect(pageSize(0)).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSize(1)).toBe(1);
    expect(pageSize(100)).toBe(100);
    expect(issuePaths(() => pageSize(101))).toEqual(["/query/limit"]);
    expect(issuePaths(() => pageSize(-1))).toEqual(["/query/limit"]);
  });

  it("reads back the position a cursor was made of, to the millisecond", () => {
    const position = { at: new Date("2026-11-27T23:59:59.123Z"), id: "0b7c6a0e-1f0e-4e55-9d0a-4b8f8d7c1a01" };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    expect(decodeCursor("")).toBeUndefined();
  });

  it("refuses a cursor it did not make", () => {
    expect(issuePaths(() => decodeCursor("garbage"))).toEqual(["/query/cursor"]);
    expect(issuePaths(() => decodeCursor(Buffer.from("not-a-date|0b7c6a0e-1f0e-4e55-9d0a-4b8f8d7c1a01").toString("base64url")))).toEqual(["/query/cursor"]);
    expect(issuePaths(() => decodeCursor(Buffer.from("2026-11-27T00:00:00.000Z|nope").toString("base64url")))).toEqual(["/query/cursor"]);
  });
});
