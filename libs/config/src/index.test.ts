import { describe, expect, it } from "vitest";
import { ConfigError, listenPort, loadConfig, num, port, str } from "./index.ts";

describe("loadConfig", () => {
  const specs = { PORT: port({ default: 8080 }), DATABASE_URL: str(), RATIO: num({ default: 0.5 }) };

  it("applies defaults and parses types", () => {
    const config = loadConfig(specs, { DATABASE_URL: "postgres://x" });
    expect(config).toEqual({ PORT: 8080, DATABASE_URL: "postgres://x", RATIO: 0.5 });
  });

  it("returns a frozen object", () => {
    const config = loadConfig(specs, { DATABASE_URL: "postgres://x", PORT: "9000" });
    expect(config.PORT).toBe(9000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("throws naming a missing required value instead of exiting", () => {
    expect(() => loadConfig(specs, {})).toThrow(ConfigError);
    expect(() => loadConfig(specs, {})).toThrow(/DATABASE_URL/);
  });

  it("throws on a malformed value", () => {
    expect(() => loadConfig(specs, { DATABASE_URL: "x", PORT: "not-a-port" })).toThrow(/PORT/);
  });

  it("lets a listening port be 0 (any free port) but not out of range", () => {
    expect(loadConfig({ PORT: listenPort({ default: 1 }) }, { PORT: "0" }).PORT).toBe(0);
    expect(() => loadConfig({ PORT: listenPort({ default: 1 }) }, { PORT: "70000" })).toThrow(/PORT/);
  });
});
