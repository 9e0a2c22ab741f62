import { describe, expect, it } from "vitest";
import { adminOrigin, changedParts } from "./automation-audit.ts";

describe("changedParts", () => {
  it("keeps only the parts that differ, and the kept keys to tell the object", () => {
    expect(changedParts({ name: "Refunds", enabled: true, trigger: { type: "ticket_created" } }, { name: "Refunds", enabled: false, trigger: { type: "ticket_created" } }, ["name"])).toEqual({
      before: { name: "Refunds", enabled: true },
      after: { name: "Refunds", enabled: false },
    });
  });

  it("answers null when nothing differs as JSON (key order and undefined do not count)", () => {
    expect(changedParts({ calendar: { a: 1, b: 2 }, policies: [] }, { policies: [], calendar: { b: 2, a: 1, c: undefined } })).toBeNull();
  });

  it("names a part that appeared or went away as null on the other side", () => {
    expect(changedParts({ calendar: null }, { calendar: { timeZone: "UTC" } })).toEqual({ before: { calendar: null }, after: { calendar: { timeZone: "UTC" } } });
  });
});

describe("adminOrigin", () => {
  it("is none without an acting user, the user otherwise, and refuses a malformed id at its path", () => {
    expect(adminOrigin(undefined, "127.0.0.1")).toBeUndefined();
    expect(adminOrigin("", undefined)).toBeUndefined();
    expect(adminOrigin("7B0E4BB2-6B0E-4C53-9C1E-4A0B7C1B2A11", "198.51.100.7")).toEqual({ actor: { type: "user", id: "7b0e4bb2-6b0e-4c53-9c1e-4a0b7c1b2a11" }, clientAddress: "198.51.100.7" });
    expect(() => adminOrigin("nobody", undefined)).toThrow(expect.objectContaining({ details: expect.objectContaining({ issues: [{ path: "/actingUserId", message: "must be the id of the acting user" }] }) }));
  });
});
