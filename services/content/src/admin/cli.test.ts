import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./cli.ts";

const id = "0b7e4f5c-2a4c-4c1e-9d55-3f4f6f0a1b2c";

describe("admin command line", () => {
  it("parses each verb", () => {
    expect(parseCommandLine(["apply", "tenant.json"])).toEqual({ verb: "apply", source: "tenant.json" });
    expect(parseCommandLine(["apply", "-"])).toEqual({ verb: "apply", source: "-" });
    expect(parseCommandLine(["api-keys", "create", "--company", id, "--name", "ci"])).toEqual({
      verb: "api-keys create",
      companyId: id,
      name: "ci",
    });
    expect(parseCommandLine(["api-keys", "revoke", id])).toEqual({ verb: "api-keys revoke", apiKeyId: id });
    expect(parseCommandLine(["games", "delete", id.toUpperCase()])).toEqual({ verb: "games delete", gameId: id });
  });

  it("recognises every way of asking for help", () => {
    for (const argv of [["help"], ["--help"], ["-h"], ["apply", "--help"]]) expect(parseCommandLine(argv)).toEqual({ verb: "help" });
  });

  it("refuses what it does not understand", () => {
    for (const argv of [
      [],
      ["frob"],
      ["apply"],
      ["apply", "a.json", "b.json"],
      ["apply", "a.json", "--company", id],
      ["api-keys", "create", "--company", id],
      ["api-keys", "create", "--company", "acme", "--name", "ci"],
      ["api-keys", "revoke"],
      ["api-keys", "revoke", "not-a-uuid"],
      ["games", "delete", id, id],
      ["games", "remove", id],
      ["apply", "a.json", "--force"],
    ]) {
      expect(() => parseCommandLine(argv), argv.join(" ")).toThrow();
    }
  });
});
