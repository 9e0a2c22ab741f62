import { describe, expect, it } from "vitest";
import { currentCallScope, incomingTimeoutMs, outsideCallScope, withCallScope, withDeadline } from "./deadline.ts";

describe("call scopes", () => {
  it("reads Connect's and gRPC's timeout headers", () => {
    expect(incomingTimeoutMs(new Headers({ "connect-timeout-ms": "1500" }))).toBe(1500);
    expect(incomingTimeoutMs(new Headers({ "grpc-timeout": "2S" }))).toBe(2000);
    expect(incomingTimeoutMs(new Headers({ "grpc-timeout": "250m" }))).toBe(250);
    expect(incomingTimeoutMs(new Headers())).toBeUndefined();
    expect(incomingTimeoutMs(new Headers({ "connect-timeout-ms": "soon" }))).toBeUndefined();
  });

  it("keeps the earlier deadline when scopes nest, and none outside them", () => {
    expect(currentCallScope()).toBeUndefined();
    withDeadline(1000, () => {
      const outer = currentCallScope()!.deadline!;
      withDeadline(60_000, () => expect(currentCallScope()!.deadline).toBe(outer));
      withDeadline(10, () => expect(currentCallScope()!.deadline).toBeLessThan(outer));
      outsideCallScope(() => expect(currentCallScope()).toBeUndefined());
    });
  });

  it("cancels inside a nested scope when the outer call is cancelled", () => {
    const outer = new AbortController();
    withCallScope({ deadline: undefined, signal: outer.signal }, () =>
      withCallScope({ deadline: undefined, signal: new AbortController().signal }, () => {
        const { signal } = currentCallScope()!;
        expect(signal!.aborted).toBe(false);
        outer.abort();
        expect(signal!.aborted).toBe(true);
      }),
    );
  });
});
