import { describe, expect, it } from "vitest";
import { HttpProblem, rateLimited } from "./errors.ts";

describe("HttpProblem", () => {
  it("captures no stack frames, so refusing a flood costs no stack walks", () => {
    const problem = rateLimited("for this API key", 3);
    expect(problem).toBeInstanceOf(Error);
    expect(problem.stack?.split("\n").filter((line) => line.trimStart().startsWith("at "))).toEqual([]);
    expect(problem.headers["Retry-After"]).toBe("3");
  });

  it("leaves the process's stack trace limit as it was, also for the errors made after it", () => {
    const before = Error.stackTraceLimit;
    new HttpProblem(405, "method_not_allowed", "no");
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error("a fault").stack).toContain("errors.test.ts");
  });
});
