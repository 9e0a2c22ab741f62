import { describe, expect, it } from "vitest";
import { checkCollectorResult } from "./collector-result.ts";

const collectorId = "5B0C7A3E-1D2F-4E5A-9B8C-7D6E5F4A3B2C";
const field = (type: string, value: unknown, attachmentIds: string[] = []) => ({ key: "k", label: "Label", type, value, attachmentIds });

describe("checkCollectorResult", () => {
  it("keeps each type's answer and lower-cases the collector id", () => {
    const result = checkCollectorResult({
      collectorId,
      title: "Form",
      fields: [field("TEXT", undefined), field("DROPDOWN", ["a"]), field("CHECKBOX", false), field("FILE", undefined, ["att-1"]), { ...field("DATE", "2026-11-20"), key: undefined }],
    });
    expect(result.collectorId).toBe(collectorId.toLowerCase());
    expect(result.fields).toEqual([
      { key: "k", label: "Label", type: "TEXT", value: null },
      { key: "k", label: "Label", type: "DROPDOWN", value: ["a"] },
      { key: "k", label: "Label", type: "CHECKBOX", value: false },
      { key: "k", label: "Label", type: "FILE", attachmentIds: ["att-1"] },
      { key: null, label: "Label", type: "DATE", value: "2026-11-20" },
    ]);
  });

  it("names every bad value by its path", () => {
    expect(() =>
      checkCollectorResult({
        collectorId: "nope",
        title: " ",
        fields: [field("TEXT", 3), field("SELECT_GROUP", "a"), field("CHECKBOX", "yes"), field("FILE", "x"), field("RATING", 1), field("TEXT", "a", ["att"])],
      }),
    ).toThrow(expect.objectContaining({
      code: "invalid_argument",
      details: expect.objectContaining({
        issues: [
          { path: "/collectorId", message: "must be a uuid" },
          { path: "/title", message: "must not be blank" },
          expect.objectContaining({ path: "/fields/0/value" }),
          expect.objectContaining({ path: "/fields/1/value" }),
          expect.objectContaining({ path: "/fields/2/value" }),
          expect.objectContaining({ path: "/fields/3/value" }),
          expect.objectContaining({ path: "/fields/4/type" }),
          expect.objectContaining({ path: "/fields/5/attachments" }),
        ],
      }),
    }));
  });

  it("requires at least one field", () => {
    expect(() => checkCollectorResult({ collectorId, title: "Form", fields: [] })).toThrow(expect.objectContaining({ code: "invalid_argument" }));
  });
});
