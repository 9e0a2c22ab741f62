import { describe, expect, it } from "vitest";
import { KeyedListeners } from "./keyed-listeners.ts";

describe("KeyedListeners", () => {
  it("calls a key's listeners only, all of them with emitAll, and forgets a key with its last listener", () => {
    const listeners = new KeyedListeners<number>();
    const seen: string[] = [];
    const offA = listeners.add("a", (n) => seen.push(`a1:${n}`));
    listeners.add("a", (n) => seen.push(`a2:${n}`));
    const offB = listeners.add("b", (n) => seen.push(`b:${n}`));
    listeners.emit("a", 1);
    listeners.emitAll(2);
    offA();
    offB();
    listeners.emit("a", 3);
    listeners.emit("b", 4);
    expect(seen).toEqual(["a1:1", "a2:1", "a1:2", "a2:2", "b:2", "a2:3"]);
    expect((listeners as unknown as { byKey: Map<string, unknown> }).byKey.has("b")).toBe(false);
  });
});
