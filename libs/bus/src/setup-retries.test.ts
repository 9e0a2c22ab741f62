// A service's JetStream setup asked again while JetStream does not answer (a cluster electing
// leaders on a busy machine): a step that timed out runs again after a pause and its answer is
// taken; any other error, or a timeout past the deadline, is thrown.
import { describe, expect, it } from "vitest";
import { isTransientSetupError, retryingSetup } from "./nats.ts";

const timeout = () => Object.assign(new Error("timeout"), { name: "TimeoutError" });

describe("the JetStream setup's retries", () => {
  it("asks again after a timeout and takes the answer", async () => {
    let calls = 0;
    const answer = await retryingSetup("consumer c", async () => {
      calls += 1;
      if (calls < 3) throw timeout();
      return "ready";
    });
    expect(answer).toBe("ready");
    expect(calls).toBe(3);
  });

  it("throws any other error at once", async () => {
    let calls = 0;
    const refused = retryingSetup("stream s", async () => {
      calls += 1;
      throw new Error("stream name already in use with a different configuration");
    });
    await expect(refused).rejects.toThrow("already in use");
    expect(calls).toBe(1);
  });

  it("gives up at its deadline", async () => {
    let calls = 0;
    const started = Date.now();
    const late = retryingSetup("consumer c", async () => {
      calls += 1;
      throw timeout();
    }, { deadlineMs: 1_200 });
    await expect(late).rejects.toThrow("timeout");
    expect(Date.now() - started).toBeLessThan(1_200);
    expect(calls).toBe(2);
  });

  it("tells the transient errors apart", () => {
    expect(isTransientSetupError(timeout())).toBe(true);
    expect(isTransientSetupError(new Error("503 JetStream system temporarily unavailable"))).toBe(true);
    expect(isTransientSetupError(new Error("no responders"))).toBe(true);
    expect(isTransientSetupError(new Error("consumer name already in use"))).toBe(false);
  });
});
