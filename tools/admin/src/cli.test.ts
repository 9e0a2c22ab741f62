import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./cli.ts";

const id = "0b7e4f5c-2a4c-4c1e-9d55-3f4f6f0a1b2c";

describe("admin command line", () => {
  it("parses each verb", () => {
    expect(parseCommandLine(["apply", "tenant.json"])).toEqual({ verb: "apply", source: "tenant.json" });
    expect(parseCommandLine(["apply", "-"])).toEqual({ verb: "apply", source: "-" });
    expect(parseCommandLine(["apply", "--company", id.toUpperCase(), "tenant.json"])).toEqual({ verb: "apply", source: "tenant.json", companyId: id });
    expect(parseCommandLine(["apply", "tenant.json", "--dry-run", "--company", id])).toEqual({ verb: "apply", source: "tenant.json", companyId: id, dryRun: true });
    expect(parseCommandLine(["apply", "--dry-run", "tenant.json"])).toEqual({ verb: "apply", source: "tenant.json", dryRun: true });
    expect(parseCommandLine(["plan", "--company", id, "-"])).toEqual({ verb: "apply", source: "-", companyId: id, dryRun: true });
    expect(parseCommandLine(["api-keys", "create", "--company", id, "--name", "ci"])).toEqual({
      verb: "api-keys create",
      companyId: id,
      name: "ci",
    });
    expect(parseCommandLine(["api-keys", "revoke", id])).toEqual({ verb: "api-keys revoke", apiKeyId: id });
    expect(parseCommandLine(["games", "delete", id.toUpperCase()])).toEqual({ verb: "games delete", gameId: id });
    expect(parseCommandLine(["players", "block", "--game", id.toUpperCase(), "--player-id", "p1"])).toEqual({
      verb: "players block",
      gameId: id,
      playerId: "p1",
    });
    expect(parseCommandLine(["players", "unblock", "--email", "a@example.com", "--game", id])).toEqual({
      verb: "players unblock",
      gameId: id,
      email: "a@example.com",
    });
    expect(parseCommandLine(["players", "schedules"])).toEqual({ verb: "players schedules" });
    expect(parseCommandLine(["players", "schedules", "--company", id.toUpperCase()])).toEqual({ verb: "players schedules", companyId: id });
    expect(parseCommandLine(["players", "cancel-deletion", id.toUpperCase()])).toEqual({ verb: "players cancel-deletion", servicePlayerId: id });
    expect(parseCommandLine(["users", "set-password", "--email", " lead@studio.example "])).toEqual({ verb: "users set-password", email: "lead@studio.example" });
    expect(parseCommandLine(["users", "invite", "--company", id.toUpperCase(), "--email", "a@b.example", "--name", "Ann", "--games", `${id}, ${id.toUpperCase()}`])).toEqual({
      verb: "users invite", companyId: id, email: "a@b.example", name: "Ann", gameIds: [id, id],
    });
    expect(parseCommandLine(["users", "deactivate", "--company", id, "--email", "a@b.example"])).toEqual({ verb: "users deactivate", companyId: id, email: "a@b.example" });
    expect(() => parseCommandLine(["users", "deactivate", "--company", id, "--email", "a@b.example", "--role", "admin"])).toThrow("takes no --role");
    expect(parseCommandLine(["users", "reset-2fa", "--email", " lead@studio.example "])).toEqual({ verb: "users reset-2fa", email: "lead@studio.example" });
  });

  it("parses the dead-letters verbs, and refuses their options elsewhere and others' options there", () => {
    expect(parseCommandLine(["dead-letters", "list"])).toEqual({ verb: "dead-letters list", limit: 100 });
    expect(parseCommandLine(["dead-letters", "list", "--consumer", "webhooks-tickets", "--limit", "5", "--after", "42"])).toEqual({
      verb: "dead-letters list",
      consumer: "webhooks-tickets",
      limit: 5,
      after: 42,
    });
    expect(parseCommandLine(["dead-letters", "replay", "7"])).toEqual({ verb: "dead-letters replay", seq: 7, keep: false });
    expect(parseCommandLine(["dead-letters", "replay", "7", "--keep"])).toEqual({ verb: "dead-letters replay", seq: 7, keep: true });
    expect(parseCommandLine(["dead-letters", "delete", "7"])).toEqual({ verb: "dead-letters delete", seq: 7 });
    for (const argv of [
      ["dead-letters"],
      ["dead-letters", "purge"],
      ["dead-letters", "list", "extra"],
      ["dead-letters", "list", "--limit", "-1"],
      ["dead-letters", "list", "--limit", "ten"],
      ["dead-letters", "list", "--after", "0"],
      ["dead-letters", "list", "--consumer", "a.b"],
      ["dead-letters", "list", "--company", id],
      ["dead-letters", "replay"],
      ["dead-letters", "replay", "1", "2"],
      ["dead-letters", "replay", "1.5"],
      ["dead-letters", "replay", "1", "--consumer", "x"],
      ["dead-letters", "delete", "1", "--keep"],
      ["games", "delete", id, "--keep"],
      ["players", "schedules", "--limit", "3"],
    ]) {
      expect(() => parseCommandLine(argv), argv.join(" ")).toThrow();
    }
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
      ["apply", "a.json", "--company", "acme"],
      ["plan"],
      ["plan", "a.json", "b.json"],
      ["plan", "a.json", "--name", "x"],
      ["games", "delete", id, "--dry-run"],
      ["api-keys", "create", "--company", id, "--name", "ci", "--dry-run"],
      ["api-keys", "create", "--company", id],
      ["api-keys", "create", "--company", "acme", "--name", "ci"],
      ["api-keys", "revoke"],
      ["api-keys", "revoke", "not-a-uuid"],
      ["games", "delete", id, id],
      ["games", "remove", id],
      ["apply", "a.json", "--force"],
      ["apply", "a.json", "--game", id],
      ["api-keys", "create", "--company", id, "--name", "ci", "--email", "a@example.com"],
      ["api-keys", "revoke", id, "--player-id", "p1"],
      ["games", "delete", id, "--game", id],
      ["players", "block", "--game", id],
      ["players", "block", "--player-id", "p1"],
      ["players", "block", "--game", "nope", "--player-id", "p1"],
      ["players", "block", "--game", id, "--player-id", "p1", "--email", "a@example.com"],
      ["players", "block", "--game", id, "--player-id", " "],
      ["players", "unblock", "--game", id, "--email", ""],
      ["players", "block", "--game", id, "--player-id", "p1", "--company", id],
      ["players", "unblock", "--game", id, "--player-id", "p1", "--name", "x"],
      ["players", "block", id, "--player-id", "p1"],
      ["players", "block", "--game", id, "--player-id", "p1", "extra"],
      ["players", "delete", "--game", id, "--player-id", "p1"],
      ["players", "schedules", "extra"],
      ["players", "schedules", "--company", "acme"],
      ["players", "schedules", "--game", id],
      ["players", "cancel-deletion"],
      ["players", "cancel-deletion", "not-a-uuid"],
      ["players", "cancel-deletion", id, id],
      ["players", "cancel-deletion", id, "--company", id],
    ]) {
      expect(() => parseCommandLine(argv), argv.join(" ")).toThrow();
    }
  });
});
