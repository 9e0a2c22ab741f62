import { describe, expect, it } from "vitest";
import { evaluate } from "./evaluate.ts";
import type { LabelledTicket, TriagePrediction } from "./model.ts";

const schema = { tags: ["bug", "payment"], fields: [{ key: "platform", values: ["ios", "android"] }] };
const ticket = (tags: string[] | null, platform?: string): LabelledTicket => ({ gameId: "g", language: "en", subject: "", messages: [], tags, fields: platform ? { platform } : {} });
const prediction = (bug: number, payment: number, platform: string, confidence: number): TriagePrediction => ({
  tags: [
    { tag: "bug", confidence: bug, decision: "none", model: "company" },
    { tag: "payment", confidence: payment, decision: "none", model: "company" },
  ],
  fields: [{ key: "platform", value: platform, confidence, decision: "none", model: "company" }],
});

describe("evaluation on held-out tickets", () => {
  it("counts precision, recall and F1 per tag and per field value, skipping unlabelled tickets", () => {
    const tickets = [ticket(["bug"], "ios"), ticket(["bug", "payment"], "android"), ticket([], "ios"), ticket(null), ticket(["payment"])];
    const predictions = [prediction(0.9, 0.1, "ios", 0.9), prediction(0.3, 0.95, "ios", 0.6), prediction(0.85, 0.2, "android", 0.85), prediction(0.99, 0.99, "android", 0.99), prediction(0.1, 0.6, "ios", 0.5)];
    const result = evaluate(schema, tickets, predictions, 0.8);
    // bug: predicted on tickets 0 and 2 (3 is unlabelled), actual on 0 and 1.
    expect(result.tags[0]).toMatchObject({ name: "bug", truePositives: 1, falsePositives: 1, falseNegatives: 1, precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(result.tags[1]).toMatchObject({ name: "payment", truePositives: 2, falsePositives: 0, falseNegatives: 0, f1: 1 });
    expect(result.macro.tagF1).toBeCloseTo(0.75, 12);
    const platform = result.fields[0]!;
    expect(platform.tickets).toBe(3);
    expect(platform.accuracy).toBeCloseTo(1 / 3, 12);
    expect(platform.values.find((v) => v.name === "android")).toMatchObject({ support: 1, truePositives: 0, falsePositives: 1, f1: 0 });
    // Set at 0.8: bug on 0 (right) and 2 (wrong), payment on 1 (right); 4 tag labels in all.
    // Platform set on 0 (right) and 2 (wrong), not on 1 (0.6); 3 tickets have a platform.
    // Calibration over the 8 tag predictions of the 4 labelled tickets. Bins: [0.1, 0.2) holds
    // 0.1 and 0.1, both negative: |0.2 - 0|; 0.2 negative; 0.3 positive; 0.6 positive; 0.85
    // negative; [0.9, 1] holds 0.9 and 0.95, both positive: |1.85 - 2|.
    expect(result.tagCalibration.expectedError).toBeCloseTo((0.2 + 0.2 + 0.7 + 0.4 + 0.85 + 0.15) / 8, 12);
    expect(result.tagCalibration.brier).toBeCloseTo((0.01 + 0.01 + 0.49 + 0.0025 + 0.7225 + 0.04 + 0.01 + 0.16) / 8, 12);
    expect(result.set).toMatchObject({ tagPrecision: 2 / 3, tagCoverage: 0.5, fieldPrecision: 0.5, fieldCoverage: 1 / 3 });
  });
});
