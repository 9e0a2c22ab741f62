import { describe, expect, it } from "vitest";
import { auditedReport, differingAttributes, emptyReport, item, sameJson, sameSet } from "./tenant-report.ts";

describe("a tenant file's report rules", () => {
  it("names only the attributes the file gives that differ; one it leaves out keeps the company's", () => {
    const current = { name: "Galaxy", languages: ["en", "fr"], blockUnverifiedPlayers: true, description: "Broken" };
    expect(differingAttributes({ name: "Galaxy", languages: ["en", "fr"], blockUnverifiedPlayers: undefined }, current)).toEqual([]);
    expect(differingAttributes({ name: "Galaxy II", languages: ["fr", "en"], description: null }, current)).toEqual(["name", "languages", "description"]);
  });

  it("compares stored JSON whatever its key order, and lists without order where order means nothing", () => {
    expect(sameJson({ en: "Hi", fr: "Salut" }, { fr: "Salut", en: "Hi" })).toBe(true);
    expect(sameJson({ keys: [{ kty: "RSA", e: "AQAB" }] }, { keys: [{ e: "AQAB", kty: "RSA" }] })).toBe(true);
    expect(sameJson(["a", "b"], ["b", "a"])).toBe(false);
    expect(sameSet(["a", "b"], ["b", "a"])).toBe(true);
  });

  it("keeps ids and secrets out of the audit entry's account", () => {
    const report = emptyReport();
    report.created.push(item("apiKey", "ci", "apiKeys/1", "0b7e4f5c-2a4c-4c1e-9d55-3f4f6f0a1b2c"));
    report.changed.push(item("game", "galaxy", "games/0", "1b7e4f5c-2a4c-4c1e-9d55-3f4f6f0a1b2c", { attributes: ["name"] }));
    report.notInFile.push(item("tag", "vip", "", "2b7e4f5c-2a4c-4c1e-9d55-3f4f6f0a1b2c"));
    expect(auditedReport(report)).toEqual({
      created: [{ kind: "apiKey", name: "ci" }],
      changed: [{ kind: "game", name: "galaxy", attributes: ["name"] }],
      notInFile: [{ kind: "tag", name: "vip" }],
    });
  });
});
