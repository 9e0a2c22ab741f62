// Resolution order: env var, then the local service, then containers, then local binaries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsJetStreamAnswers, resolveNats, startNatsServer } from "./nats.ts";
import type { NatsServer } from "./nats.ts";
import { freePort } from "./net.ts";
import { postgresAnswers, resolvePostgres } from "./postgres.ts";
import { resolveS3 } from "./s3.ts";

describe("an environment variable wins", () => {
  it("uses DATABASE_URL without probing anything", async () => {
    const url = "postgres://someone@127.0.0.1:1/elsewhere";
    const pg = await resolvePostgres({ env: { DATABASE_URL: url } });
    expect(pg).toMatchObject({ adminUrl: url, source: "env" });
  });

  it("uses NATS_URL without probing anything", async () => {
    const nats = await resolveNats({ env: { NATS_URL: "nats://127.0.0.1:1" } });
    expect(nats).toMatchObject({ url: "nats://127.0.0.1:1", source: "env" });
  });

  it("uses S3_ENDPOINT and the S3_* settings", async () => {
    // A real endpoint is needed because the bucket is ensured: borrow the in-process one.
    const inProcess = await resolveS3({ env: {} });
    try {
      const s3 = await resolveS3({
        env: { S3_ENDPOINT: inProcess.endpoint, S3_BUCKET: "from-env", S3_REGION: "eu-west-3" },
      });
      expect(s3).toMatchObject({ endpoint: inProcess.endpoint, bucket: "from-env", region: "eu-west-3", source: "env" });
    } finally {
      await inProcess.stop();
    }
  });
});

describe("falling back to private servers from local binaries", () => {
  it("starts Postgres when nothing answers on the local port, and stops it when released", async () => {
    const closed = await freePort();
    const started = performance.now();
    const pg = await resolvePostgres({ env: {}, localPort: closed, containers: false });
    const tookMs = performance.now() - started;
    try {
      expect(pg.source).toBe("binary");
      expect(await postgresAnswers(pg.adminUrl)).toBe(true);
      // A second caller in the same process shares the running server.
      const again = await resolvePostgres({ env: {}, localPort: closed, containers: false });
      expect(again.adminUrl).toBe(pg.adminUrl);
      await again.stop();
      expect(await postgresAnswers(pg.adminUrl)).toBe(true);
    } finally {
      await pg.stop();
    }
    expect(await postgresAnswers(pg.adminUrl)).toBe(false);
    console.log(`private postgres: started in ${tookMs.toFixed(0)} ms`);
  });

  it("starts nats-server with JetStream when nothing answers on the local port", async () => {
    const closed = await freePort();
    const nats = await resolveNats({ env: {}, localPort: closed, containers: false });
    try {
      expect(nats.source).toBe("binary");
      expect(await natsJetStreamAnswers(nats.url)).toBe(true);
    } finally {
      await nats.stop();
    }
    expect(await natsJetStreamAnswers(nats.url)).toBe(false);
  });
});

describe("a local service that answers is reused", () => {
  let server: NatsServer;
  let plainNatsPort: number;
  let plainNats: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ storeDir: `/tmp/testkit-js-${process.pid}`, removeOnStop: true });
    plainNatsPort = await freePort();
    // A NATS server without JetStream must not count as usable.
    plainNats = await startNatsServerWithoutJetStream(plainNatsPort);
  });
  afterAll(async () => {
    await server?.stop();
    await plainNats?.stop();
  });

  it("uses the local NATS when it has JetStream", async () => {
    const nats = await resolveNats({ env: {}, localPort: server.port, containers: false });
    expect(nats).toMatchObject({ url: `nats://127.0.0.1:${server.port}`, source: "local" });
  });

  it("does not use a local NATS without JetStream", async () => {
    expect(await natsJetStreamAnswers(`nats://127.0.0.1:${plainNatsPort}`)).toBe(false);
  });

  it("uses the local Postgres when it answers", async () => {
    const local = await postgresAnswers("postgres://postgres@127.0.0.1:5432/postgres");
    if (!local) return; // no local server on this machine: covered by the binary fallback test
    const pg = await resolvePostgres({ env: {}, containers: false });
    expect(pg).toMatchObject({ adminUrl: "postgres://postgres@127.0.0.1:5432/postgres", source: "local" });
  });
});

async function startNatsServerWithoutJetStream(port: number): Promise<NatsServer> {
  const { spawn } = await import("node:child_process");
  const { findNatsServer } = await import("./nats.ts");
  const { tcpAnswers, waitFor } = await import("./net.ts");
  const bin = findNatsServer();
  if (!bin) throw new Error("nats-server missing");
  const child = spawn(bin, ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  await waitFor("plain nats", () => tcpAnswers("127.0.0.1", port), 10_000, 50);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
