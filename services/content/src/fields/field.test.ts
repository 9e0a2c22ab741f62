import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import { parseNewField, type NewFieldInput } from "./field.ts";

function issuesOf(input: NewFieldInput) {
  try {
    parseNewField(input);
  } catch (error) {
    return (error as AppError).details?.issues;
  }
  return [];
}

describe("field definition rules", () => {
  it("knows the five field types", () => {
    for (const type of ["text", "number", "date", "boolean"]) expect(issuesOf({ gameId: null, key: "k", name: "K", type })).toEqual([]);
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "dropdown", options: ["a"] })).toEqual([]);
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "select" })).toEqual([{ path: "/type", message: expect.any(String) }]);
  });

  it("needs options for a dropdown and refuses them elsewhere", () => {
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "dropdown" })).toEqual([{ path: "/options", message: expect.any(String) }]);
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "dropdown", options: [] })).toEqual([{ path: "/options", message: expect.any(String) }]);
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "text", options: ["a"] })).toEqual([
      { path: "/options", message: "only dropdown fields have options" },
    ]);
    expect(issuesOf({ gameId: null, key: "k", name: "K", type: "dropdown", options: ["a", " ", "a"] })).toEqual([
      { path: "/options/1", message: expect.any(String) },
      { path: "/options/2", message: "is listed twice" },
    ]);
  });

  it("restricts keys to what fits a query parameter", () => {
    expect(issuesOf({ gameId: null, key: "ship class", name: "K", type: "text" })).toEqual([{ path: "/key", message: expect.any(String) }]);
    expect(issuesOf({ gameId: null, key: "ship_class-2", name: "K", type: "text" })).toEqual([]);
  });

  it("defaults description to null and isAiField to false", () => {
    expect(parseNewField({ gameId: null, key: "k", name: "K", type: "number", description: "  " })).toMatchObject({
      description: null,
      isAiField: false,
      options: [],
    });
  });
});
