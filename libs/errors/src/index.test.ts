import { describe, expect, it } from "vitest";
import { AppError, isAppError, validationError } from "./index.ts";

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
