import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { backoffDelay, createFailureEpisode, createLogger } from "./index.ts";

function capture() {
  const lines: { level: number; msg: string; failures?: number }[] = [];
  const destination = new Writable({ write: (chunk, _e, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  return { lines, logger: createLogger({ service: "episode-test", level: "debug", destination }) };
}

describe("failure episodes", () => {
  it("warns once per outage, logs later attempts at debug, and reports the recovery once", () => {
    const { lines, logger } = capture();
    const episode = createFailureEpisode(logger, "relay");
    episode.succeeded(); // healthy: nothing to say
    for (let i = 0; i < 5; i++) episode.failed(new Error("down"));
    expect(episode.failures).toBe(5);
    episode.succeeded();
    episode.succeeded();
    episode.failed(new Error("down again"));
    const warnings = lines.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toEqual(["relay failed; retrying with backoff", "relay failed; retrying with backoff"]);
    expect(lines.filter((line) => line.level === 20)).toHaveLength(4);
    expect(lines.filter((line) => line.msg === "relay recovered")).toMatchObject([{ failures: 5 }]);
    expect(episode.failures).toBe(1);
  });

  it("doubles the delay from its base up to its cap", () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(n, 500, 3000))).toEqual([0, 500, 1000, 2000, 3000]);
    expect(backoffDelay(1000)).toBe(30_000);
  });
});
