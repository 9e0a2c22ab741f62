import { describe, expect, it } from "vitest";
import { onlinePrecision, type PredictionOutcome } from "./precision.ts";

const tag = (decision: PredictionOutcome["decision"], kept: boolean, name = "crash"): PredictionOutcome => ({ name, kind: "tag", decision, predicted: name, final: kept ? name : null });

describe("online precision", () => {
  it("counts a set value kept as right and one an agent removed or changed as wrong", () => {
    const result = onlinePrecision([
      tag("set", true),
      tag("set", true),
      tag("set", false),
      { name: "platform", kind: "field", decision: "set", predicted: "ios", final: "android" },
      { name: "platform", kind: "field", decision: "set", predicted: "ios", final: "ios" },
    ]);
    expect(result.byName["tag:crash"]!.set).toEqual({ right: 2, wrong: 1, precision: 2 / 3 });
    expect(result.byName["field:platform"]!.set).toEqual({ right: 1, wrong: 1, precision: 0.5 });
    expect(result.set).toEqual({ right: 3, wrong: 2, precision: 0.6 });
  });

  it("counts a suggestion as right only when the ticket ends with that value, apart from set values", () => {
    const result = onlinePrecision([tag("suggest", true), tag("suggest", false), tag("suggest", false), tag("set", true)]);
    expect(result.suggest).toEqual({ right: 1, wrong: 2, precision: 1 / 3 });
    expect(result.set).toEqual({ right: 1, wrong: 0, precision: 1 });
  });

  it("does not count what was not put forward", () => {
    const result = onlinePrecision([tag("none", true), tag("none", false)]);
    expect(result.set.precision).toBeNull();
    expect(result.suggest.precision).toBeNull();
    expect(result.byName).toEqual({});
  });
});
