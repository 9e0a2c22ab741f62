import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { AppError, conflict, notFound } from "@support/errors";
import { appErrorToConnect, connectToAppError, toHttpError, toServiceError } from "./errors.ts";
import { DEADLINE_MESSAGE, OUTCOME_UNKNOWN_MESSAGE, UNAVAILABLE_MESSAGE, isDependencyUnavailable } from "./faults.ts";

/** What the gateway answers for an error a service's handler threw, after it crossed the wire. */
function answered(error: unknown, readOnly = false) {
  return toHttpError(appErrorToConnect(toServiceError(error).error), { readOnly });
}

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: "FATAL" });
}

describe("the error contract", () => {
  it("answers a conflict a service raised on purpose as 409 with its message", () => {
    expect(answered(conflict("ticket is closed"))).toEqual({
      status: 409,
      headers: {},
      body: { code: "conflict", message: "ticket is closed" },
    });
  });

  it("answers Aborted without the service's error code (a reset connection) as 503 with Retry-After, not 409", () => {
    const http = toHttpError(new ConnectError("read ECONNRESET", Code.Aborted));
    expect(http).toEqual({ status: 503, headers: { "retry-after": "2" }, body: { code: "unavailable", message: OUTCOME_UNKNOWN_MESSAGE } });
    expect(OUTCOME_UNKNOWN_MESSAGE).toContain("may or may not have been applied");
  });

  it("answers a cancelled stream and an unknown transport failure as 503", () => {
    for (const code of [Code.Canceled, Code.Unknown]) {
      const http = toHttpError(new ConnectError("http/2 stream closed with error code CANCEL (0x8)", code));
      expect(http.status).toBe(503);
      expect(http.headers["retry-after"]).toBe("2");
      expect(http.body).toEqual({ code: "unavailable", message: OUTCOME_UNKNOWN_MESSAGE });
    }
  });

  it("answers a refused connection as 503 saying nothing was applied", () => {
    const http = toHttpError(new ConnectError("connect ECONNREFUSED 10.0.0.8:50051", Code.Unavailable));
    expect(http).toEqual({ status: 503, headers: { "retry-after": "2" }, body: { code: "unavailable", message: UNAVAILABLE_MESSAGE } });
  });

  it("answers a passed deadline as 504 deadline_exceeded", () => {
    const http = toHttpError(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    expect(http).toEqual({ status: 504, headers: {}, body: { code: "deadline_exceeded", message: DEADLINE_MESSAGE } });
  });

  it("does not warn a read that it may have been applied", () => {
    expect(toHttpError(new ConnectError("read ECONNRESET", Code.Aborted), { readOnly: true }).body.message).toBe(UNAVAILABLE_MESSAGE);
    expect(toHttpError(new ConnectError("timed out", Code.DeadlineExceeded), { readOnly: true }).body.message).not.toContain("applied");
  });

  it("answers an unavailable database as 503, not 500, without the driver's text", () => {
    const refused = Object.assign(new AggregateError([Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:5432"), { code: "ECONNREFUSED" })]), {
      code: "ECONNREFUSED",
    });
    const unavailable = [
      refused,
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      Object.assign(new Error("connect ETIMEDOUT 10.0.0.7:5432"), { code: "ETIMEDOUT" }),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      new Error("timeout expired"),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P02", "terminating connection because of crash of another server process"),
      pgError("57P03", "the database system is starting up"),
      pgError("53300", "sorry, too many clients already"),
      pgError("08006", "connection failure"),
      new Error("query failed", { cause: pgError("08003", "connection does not exist") }),
    ];
    for (const error of unavailable) {
      expect(isDependencyUnavailable(error), String(error)).toBe(true);
      const http = answered(error);
      expect(http.status, String(error)).toBe(503);
      expect(http.headers["retry-after"]).toBe("2");
      expect(http.body).toEqual({ code: "unavailable", message: UNAVAILABLE_MESSAGE });
    }
  });

  it("answers any other error as 500 internal without its message", () => {
    for (const error of [pgError("23505", 'duplicate key value violates unique constraint "tickets_pkey"'), new TypeError("x is undefined at 10.0.0.7")]) {
      expect(isDependencyUnavailable(error)).toBe(false);
      expect(answered(error)).toEqual({ status: 500, headers: {}, body: { code: "internal", message: "Internal error" } });
    }
    expect(toHttpError(new Error("secret at 10.0.0.7")).body).toEqual({ code: "internal", message: "Internal error" });
    expect(toHttpError(new ConnectError("stack at 10.0.0.7", Code.Internal)).body.message).toBe("Internal error");
    expect(toHttpError(new AppError("internal", "select * from secrets")).body.message).toBe("Internal error");
  });

  it("keeps a domain error's code, message and details across the wire", () => {
    const error = new AppError("failed_precondition", "The player is blocked", { type: "PLAYER_BLOCKED" });
    expect(connectToAppError(appErrorToConnect(error))).toMatchObject({ code: "failed_precondition", message: "The player is blocked", details: { type: "PLAYER_BLOCKED" } });
    expect(connectToAppError(notFound("game not found"))).toMatchObject({ code: "not_found", message: "game not found" });
  });

  it("keeps a service's deliberate unavailable answer and its message", () => {
    const http = answered(new AppError("unavailable", "The player's data is being deleted; try again shortly"));
    expect(http).toEqual({
      status: 503,
      headers: { "retry-after": "2" },
      body: { code: "unavailable", message: "The player's data is being deleted; try again shortly" },
    });
  });
});
