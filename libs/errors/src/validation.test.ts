import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { isEmail, isUuid } from "./validation.ts";

// Before this rule, services disagreed: players and tickets took anything with one @ and no
// space (`ann@localhost`), gateway's collector answers and content's users also wanted a dot
// after the @, and the REST API (ajv-formats) wanted the dot-atom form below.
const emails = {
  accepted: [
    "ann@example.com",
    "Ann.Lee@Example.COM",
    "ann+support@mail.example.co.uk",
    "o'brien@example.ie",
    "a@b.co",
    "x_y-z@sub-domain.example.org",
    "ann@xn--bcher-kva.de",
    "1234@123.example",
  ],
  refused: [
    // accepted by the old players/tickets rule (one @, no spaces)
    "ann@localhost",
    "ann@example",
    // accepted by every old rule
    "ann..lee@example.com",
    ".ann@example.com",
    "ann.@example.com",
    "ann@-example.com",
    "ann@example-.com",
    "ann@example.com.",
    "ann@example..com",
    "jörg@example.com",
    "ann@bücher.de",
    "ann@[192.168.0.1]",
    "ann(comment)@example.com",
    "ann@exa_mple.com",
    // refused by every old rule too
    "",
    "ann",
    "ann@",
    "@example.com",
    "ann@@example.com",
    "ann lee@example.com",
    " ann@example.com",
    "ann@example.com ",
    "\"ann lee\"@example.com",
  ],
};

describe("isEmail", () => {
  it.each(emails.accepted)("accepts %j", (email) => {
    expect(isEmail(email)).toBe(true);
  });

  it.each(emails.refused)("refuses %j", (email) => {
    expect(isEmail(email)).toBe(false);
  });

  it("refuses what is not a string", () => {
    for (const value of [undefined, null, 42, {}, ["ann@example.com"]]) expect(isEmail(value)).toBe(false);
  });

  it("agrees with the OpenAPI `format: email` of ajv-formats (full mode) on every example", () => {
    const format = addFormats.default.get("email", "full") as RegExp;
    for (const email of [...emails.accepted, ...emails.refused]) expect([email, isEmail(email)]).toEqual([email, format.test(email)]);
  });
});

describe("isUuid", () => {
  it("accepts any version in either case", () => {
    expect(isUuid("0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(true);
    expect(isUuid("0F8FAD5B-D9CB-469F-A165-70867728950E")).toBe(true);
    expect(isUuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isUuid("01890a5d-ac96-774b-bcce-b302099a8057")).toBe(true);
  });

  it("refuses other forms, also those ajv-formats or Postgres would read", () => {
    expect(isUuid("0f8fad5b-d9cb-469f-a165-70867728950")).toBe(false);
    expect(isUuid("0f8fad5bd9cb469fa16570867728950e")).toBe(false);
    expect(isUuid("{0f8fad5b-d9cb-469f-a165-70867728950e}")).toBe(false);
    expect(isUuid("urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(false);
    expect(isUuid(" 0f8fad5b-d9cb-469f-a165-70867728950e")).toBe(false);
    expect(isUuid("0f8fad5b-d9cb-469f-a165-70867728950g")).toBe(false);
    expect(isUuid(42)).toBe(false);
    expect(isUuid(undefined)).toBe(false);
  });
});
