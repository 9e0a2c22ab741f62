import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.ts";

const SECRET = "test-secret";
const COMPANY = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const OTHER_COMPANY = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const KEY = { createdAt: new Date("2026-03-04T05:06:07.089Z"), runningId: 4711 };

function resign(payload: object, companyId = COMPANY, secret = SECRET): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const mac = createHmac("sha256", secret).update(`${companyId}\n${encoded}`).digest().subarray(0, 16).toString("base64url");
  return `${encoded}.${mac}`;
}

describe("list cursor", () => {
  it("round-trips the keyset position", () => {
    const cursor = encodeCursor(SECRET, COMPANY, "asc", KEY);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(SECRET, COMPANY, "asc", cursor)).toEqual({ ok: true, key: KEY });
    const desc = encodeCursor(SECRET, COMPANY, "desc", KEY);
    expect(decodeCursor(SECRET, COMPANY, "desc", desc)).toEqual({ ok: true, key: KEY });
  });

  it("refuses a cursor used with the other order", () => {
    const cursor = encodeCursor(SECRET, COMPANY, "asc", KEY);
    expect(decodeCursor(SECRET, COMPANY, "desc", cursor)).toEqual({ ok: false, reason: expect.stringContaining("order=asc") });
  });

  it("refuses another company's cursor", () => {
    const cursor = encodeCursor(SECRET, OTHER_COMPANY, "asc", KEY);
    expect(decodeCursor(SECRET, COMPANY, "asc", cursor).ok).toBe(false);
  });

  it("refuses a cursor signed with another secret", () => {
    expect(decodeCursor(SECRET, COMPANY, "asc", encodeCursor("other-secret", COMPANY, "asc", KEY)).ok).toBe(false);
  });

  it("refuses any altered byte of the payload or the signature", () => {
    const cursor = encodeCursor(SECRET, COMPANY, "asc", KEY);
    for (let i = 0; i < cursor.length; i += 1) {
      if (cursor[i] === ".") continue;
      const replacement = cursor[i] === "A" ? "B" : "A";
      const altered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
      const result = decodeCursor(SECRET, COMPANY, "asc", altered);
      // base64url's last character may carry unused bits: then the bytes, and the answer, stay the same.
      if (result.ok) expect(Buffer.from(altered.split(".")[0]!, "base64url")).toEqual(Buffer.from(cursor.split(".")[0]!, "base64url"));
    }
  });

  it("refuses a forged payload whose signature does not cover it", () => {
    const [, signature] = encodeCursor(SECRET, COMPANY, "asc", KEY).split(".");
    const forged = Buffer.from(JSON.stringify({ v: 1, o: "asc", k: ["2020-01-01T00:00:00.000Z", 1] })).toString("base64url");
    expect(decodeCursor(SECRET, COMPANY, "asc", `${forged}.${signature}`).ok).toBe(false);
  });

  it("refuses garbage and well-signed payloads of the wrong shape", () => {
    for (const garbage of ["", ".", "abc", "a.b.c", "not base64!.x", "eyJ9.AAAA"]) {
      expect(decodeCursor(SECRET, COMPANY, "asc", garbage).ok).toBe(false);
    }
    expect(decodeCursor(SECRET, COMPANY, "asc", resign({ v: 2, o: "asc", k: ["2026-01-01T00:00:00.000Z", 1] })).ok).toBe(false);
    expect(decodeCursor(SECRET, COMPANY, "asc", resign({ v: 1, o: "asc", k: ["2026-01-01", 1] })).ok).toBe(false);
    expect(decodeCursor(SECRET, COMPANY, "asc", resign({ v: 1, o: "asc", k: ["2026-01-01T00:00:00.000Z", -1] })).ok).toBe(false);
    expect(decodeCursor(SECRET, COMPANY, "asc", resign({ v: 1, o: "asc", k: ["2026-01-01T00:00:00.000Z", 1] })).ok).toBe(true);
  });
});
