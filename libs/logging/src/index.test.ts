import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, currentRequestId, infoLineWriter, requestIdFrom, withRequestId } from "./index.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

describe("logging", () => {
  it("attaches the current request id to every line written inside the context", async () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: "test", destination });
    await withRequestId("req-1", async () => {
      await Promise.resolve();
      logger.info("inside");
    });
    logger.info("outside");
    expect(lines[0]).toMatchObject({ service: "test", requestId: "req-1", msg: "inside" });
    expect(lines[1]).not.toHaveProperty("requestId");
  });

  it("keeps a well-formed incoming id and replaces a hostile one", () => {
    expect(requestIdFrom("abc-123")).toBe("abc-123");
    const replaced = requestIdFrom("bad id\nwith newline");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("redacts authorization headers", () => {
    const { lines, destination } = capture();
    createLogger({ service: "test", destination }).info({ req: { headers: { authorization: "Bearer secret" } } }, "x");
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  it("has no request id outside a context", () => {
    expect(currentRequestId()).toBeUndefined();
  });

  it("writes a fixed line as pino would, and not below the logger's level", () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: "test", destination }).child({ part: "access" });
    const fields = { method: "GET", path: '/odd "path"\\', status: 200, ms: 1.5, none: Number.NaN };
    const write = infoLineWriter<typeof fields>(logger, "request");
    withRequestId("req-9", () => {
      logger.info(fields, "request");
      write(fields);
    });
    write(fields);
    const [byPino, byWriter, outside] = lines.map(({ time, ...rest }) => {
      expect(typeof time).toBe("string");
      return rest;
    });
    expect(byWriter).toEqual(byPino);
    expect(byWriter).toMatchObject({ level: 30, service: "test", part: "access", requestId: "req-9", path: '/odd "path"\\', none: null, msg: "request" });
    expect(outside).not.toHaveProperty("requestId");
    logger.level = "warn";
    write(fields);
    expect(lines).toHaveLength(3);
  });
});
