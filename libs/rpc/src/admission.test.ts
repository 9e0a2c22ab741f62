// Admission control: calls up to the limit go through, the next wait in a bounded queue for a
// free slot (first come, first served), and the rest are refused at once with the 503 of a busy
// service, which no breaker counts. A fake backend whose answers the test releases one by one.
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BUSY_MESSAGE, createAdmissionTransport, createResilientTransport, toHttpError } from "./index.ts";

/** A backend holding every call until the test answers it. */
function heldBackend() {
  const pending: { name: string; answer: () => void; fail: (error: unknown) => void }[] = [];
  let streams = 0;
  const transport = {
    unary: (method: { name: string }) =>
      new Promise((resolve, reject) => {
        pending.push({ name: method.name, answer: () => resolve({ message: method.name }), fail: reject });
      }),
    stream: () => {
      streams += 1;
      return Promise.resolve({});
    },
  } as unknown as Transport;
  return { transport, pending, streams: () => streams };
}

const call = (transport: Transport, name: string, signal?: AbortSignal) =>
  (transport.unary as unknown as (...args: unknown[]) => Promise<{ message: string }>)({ name }, signal, undefined, undefined, {}, undefined);

/** The outcome of a call that settles within `ms`: its answer, its error, or "pending". */
async function settled<T>(promise: Promise<T>, ms = 20): Promise<T | Error | "pending"> {
  return Promise.race([promise.catch((error: Error) => error), new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))]);
}

describe("admission control", () => {
  it("lets the limit through, queues the next, and refuses beyond the queue at once with a busy 503", async () => {
    const backend = heldBackend();
    const admitted = createAdmissionTransport(backend.transport, { maxInFlight: 2, maxQueued: 1, maxWaitMs: 5_000 });
    const first = call(admitted, "a");
    const second = call(admitted, "b");
    const third = call(admitted, "c");
    const started = performance.now();
    const refused = await settled(call(admitted, "d"));
    expect(performance.now() - started).toBeLessThan(15);
    expect(backend.pending.map((p) => p.name)).toEqual(["a", "b"]);
    expect(admitted.admission()).toEqual({ inFlight: 2, queued: 1 });
    expect(refused).toBeInstanceOf(ConnectError);
    // At the gateway: 503 unavailable with Retry-After and the busy message, the same for a write.
    const answer = toHttpError(refused, { readOnly: false });
    expect(answer).toMatchObject({ status: 503, body: { code: "unavailable", message: BUSY_MESSAGE } });
    expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // A freed slot goes to the waiting call, first come first served.
    backend.pending[0]!.answer();
    expect(await first).toEqual({ message: "a" });
    await expect.poll(() => backend.pending.map((p) => p.name)).toEqual(["a", "b", "c"]);
    expect(admitted.admission()).toEqual({ inFlight: 2, queued: 0 });
    backend.pending[1]!.answer();
    backend.pending[2]!.answer();
    expect(await Promise.all([second, third])).toEqual([{ message: "b" }, { message: "c" }]);
    expect(admitted.admission()).toEqual({ inFlight: 0, queued: 0 });
  });

  it("refuses a call that waited longer than maxWaitMs, and frees its place in the queue", async () => {
    const backend = heldBackend();
    const reasons: string[] = [];
    const admitted = createAdmissionTransport(backend.transport, { maxInFlight: 1, maxQueued: 5, maxWaitMs: 30, onRefused: (reason) => reasons.push(reason) });
    const first = call(admitted, "a");
    const started = performance.now();
    const waited = await settled(call(admitted, "b"), 500);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(waited).toBeInstanceOf(ConnectError);
    expect((waited as ConnectError).rawMessage).toBe(BUSY_MESSAGE);
    expect(admitted.admission()).toEqual({ inFlight: 1, queued: 0 });
    expect(reasons).toEqual(["waited_too_long"]);
    backend.pending[0]!.answer();
    await first;
    // The slot is free again: the next call goes through at once.
    const next = call(admitted, "c");
    await expect.poll(() => backend.pending.length).toBe(2);
    backend.pending[1]!.answer();
    expect(await next).toEqual({ message: "c" });
  });

  it("takes a waiting call out of the queue when its caller gives up, without giving it a slot", async () => {
    const backend = heldBackend();
    const admitted = createAdmissionTransport(backend.transport, { maxInFlight: 1, maxQueued: 5, maxWaitMs: 5_000 });
    const first = call(admitted, "a");
    const controller = new AbortController();
    const waiting = call(admitted, "b", controller.signal);
    expect(admitted.admission()).toEqual({ inFlight: 1, queued: 1 });
    controller.abort();
    const outcome = await settled(waiting);
    expect((outcome as ConnectError).code).toBe(Code.Canceled);
    expect(admitted.admission()).toEqual({ inFlight: 1, queued: 0 });
    backend.pending[0]!.answer();
    await first;
    expect(backend.pending.map((p) => p.name)).toEqual(["a"]);
    expect(admitted.admission()).toEqual({ inFlight: 0, queued: 0 });
  });

  it("frees the slot of a call that failed, and never limits streams or a limit of 0", async () => {
    const backend = heldBackend();
    const admitted = createAdmissionTransport(backend.transport, { maxInFlight: 1, maxQueued: 0, maxWaitMs: 0 });
    const failing = call(admitted, "a");
    backend.pending[0]!.fail(new ConnectError("gone", Code.Unavailable));
    await expect(failing).rejects.toThrow("gone");
    expect(admitted.admission().inFlight).toBe(0);
    const held = call(admitted, "b");
    for (let n = 0; n < 5; n++) await (admitted.stream as unknown as (...args: unknown[]) => Promise<unknown>)({ name: "s" }, undefined, undefined, undefined, {}, undefined);
    expect(backend.streams()).toBe(5);
    backend.pending[1]!.answer();
    await held;
    const unlimited = createAdmissionTransport(backend.transport, { maxInFlight: 0, maxQueued: 0, maxWaitMs: 0 });
    const many = Array.from({ length: 50 }, (_, n) => call(unlimited, `u${n}`));
    expect(backend.pending.length).toBe(52);
    for (const pending of backend.pending.slice(2)) pending.answer();
    expect(await Promise.all(many)).toHaveLength(50);
  });
});

describe("the circuit breaker under load", () => {
  it("stays closed when calls pass their deadline (a busy backend), and opens when the backend is gone", async () => {
    const backend = heldBackend();
    const guarded = createResilientTransport(backend.transport, { breakAfterFailures: 3, halfOpenAfterMs: 60_000 });
    for (let n = 0; n < 6; n++) {
      const late = call(guarded, `late${n}`);
      backend.pending.at(-1)!.fail(new ConnectError("deadline", Code.DeadlineExceeded));
      await expect(late).rejects.toThrow("deadline");
    }
    expect(guarded.breakerState()).toBe("closed");
    for (let n = 0; n < 3; n++) {
      const gone = call(guarded, `gone${n}`);
      backend.pending.at(-1)!.fail(new ConnectError("reset", Code.Unavailable));
      await expect(gone).rejects.toThrow("reset");
    }
    expect(guarded.breakerState()).toBe("open");
  });
});
