import { create } from "@bufbuild/protobuf";
import { CollectorSchema } from "@support/proto";
import { describe, expect, it } from "vitest";
import { checkCollectorAnswers, withDefinitionLabels } from "./collector-answers.ts";

const collector = create(CollectorSchema, {
  id: "5b0c7a3e-1d2f-4e5a-9b8c-7d6e5f4a3b2c",
  title: "Form",
  fields: [
    { key: "when", label: "When", type: "DATE", required: true },
    { key: "mail", label: "Mail", type: "EMAIL" },
    { key: "shot", label: "Shot", type: "FILE", required: true },
    { key: "os", label: "OS", type: "PLATFORM_SELECTOR" },
  ],
});

const paths = (answers: unknown[]) => checkCollectorAnswers(collector, answers as never).map((issue) => `${issue.path} ${issue.message}`);

describe("collector answers against the definition", () => {
  it("accepts dates and date-times, refuses impossible dates and other text", () => {
    const base = [{ key: "shot", label: "S", type: "FILE", attachments: ["a1"] }];
    for (const value of ["2026-02-28", "2024-02-29", "2026-11-20T10:00:00Z", "2026-11-20T10:00:00.5+02:00"]) {
      expect(paths([...base, { key: "when", label: "W", type: "DATE", value }]), value).toEqual([]);
    }
    for (const value of ["2026-02-29", "2026-13-01", "20/11/2026", "2026-11-20T10:00"]) {
      expect(paths([...base, { key: "when", label: "W", type: "DATE", value }]), value).toEqual(["/fields/1/value must be a date (YYYY-MM-DD) or a date-time"]);
    }
  });

  it("needs an attachment for a required FILE, allows a blank optional EMAIL, and any platform without options", () => {
    expect(paths([
      { key: "when", label: "W", type: "DATE", value: "2026-01-01" },
      { key: "shot", label: "S", type: "FILE", attachments: [] },
      { key: "mail", label: "M", type: "EMAIL", value: null },
      { key: "os", label: "O", type: "PLATFORM_SELECTOR", value: "anything" },
    ])).toEqual(["/fields/1/value is required"]);
  });

  it("names each required field that is missing", () => {
    expect(paths([{ key: "mail", label: "M", type: "EMAIL", value: "a@b.example" }])).toEqual([
      '/fields must answer the required field "when"',
      '/fields must answer the required field "shot"',
    ]);
  });

  it("stores the definition's labels", () => {
    expect(withDefinitionLabels(collector, [{ key: "mail", label: "whatever", type: "EMAIL", value: "a@b.example" }] as never)).toEqual([
      { key: "mail", label: "Mail", type: "EMAIL", value: "a@b.example" },
    ]);
  });
});
