import { describe, expect, it } from "vitest";
import { tenantFileSchema } from "@support/tenant-file";
import { LANGUAGE_CODES } from "../common/language.ts";

describe("tenant file", () => {
  it("lists exactly the language codes content accepts", () => {
    expect(tenantFileSchema.definitions.language.enum).toEqual([...LANGUAGE_CODES]);
  });
});
