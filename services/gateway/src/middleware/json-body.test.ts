// How failures to read a JSON body are answered: client-side ones are 4xx, never a 500.
import { AppError } from "@support/errors";
import { describe, expect, it } from "vitest";
import { bodyError } from "./json-body.ts";

function codeOf(error: unknown): string | undefined {
  return error instanceof AppError ? error.code : undefined;
}

describe("bodyError", () => {
  it("answers a body the client stopped sending as incomplete (400), not as a server failure", () => {
    for (const type of ["request.aborted", "request.size.invalid", "stream.not.readable"]) {
      const error = Object.assign(new Error("stream is not readable"), { type, status: type === "stream.not.readable" ? 500 : 400 });
      const answer = bodyError(error, 1024, "");
      expect(codeOf(answer), type).toBe("invalid_argument");
      expect((answer as Error).message).toBe("The request body is incomplete");
    }
  });

  it("answers an oversized body 413 and malformed JSON 400", () => {
    expect(codeOf(bodyError(Object.assign(new Error("too large"), { type: "entity.too.large", status: 413 }), 1024, ""))).toBe("payload_too_large");
    expect(codeOf(bodyError(new SyntaxError("Unexpected token"), 1024, ""))).toBe("invalid_argument");
  });

  it("passes an unknown failure through, to be answered and logged as a server error", () => {
    const unknown = new Error("something else");
    expect(bodyError(unknown, 1024, "")).toBe(unknown);
  });
});
