import { describe, expect, it } from "vitest";
import { AppError, isAppError, isUuid, validationError } from "./index.ts";

describe("AppError", () => {
  it("carries validation issues as VALIDATION_ERROR details", () => {
    const error = validationError([{ path: "/metadata/player/email", message: "is required" }]);
    expect(error.code).toBe("invalid_argument");
    expect(error.details).toEqual({
      type: "VALIDATION_ERROR",
      issues: [{ path: "/metadata/player/email", message: "is required" }],
    });
    expect(isAppError(error)).toBe(true);
  });

  it("is not confused with a plain Error", () => {
    expect(isAppError(new Error("x"))).toBe(false);
    expect(new AppError("not_found", "gone")).toBeInstanceOf(Error);
  });
});

describe("isUuid", () => {
  it("accepts any version in either case and refuses everything else", () => {
    expect(isUuid("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(true);
    expect(isUuid("0F8FAD5B-D9CB-469F-A165-70867728950E")).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isUuid("0f8fad5b-d9cb-469f-a165-70867728950")).toBe(false);
    expect(isUuid("0f8fad5bd9cb469fa16570867728950e")).toBe(false);
    expect(isUuid(" 0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(false);
    expect(isUuid(42)).toBe(false);
    expect(isUuid(undefined)).toBe(false);
  });
});
