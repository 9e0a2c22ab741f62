// createTestInfra against whatever resolves here (on these machines: the local services).
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { createTestInfra } from "./infra.ts";
import { deleteStreamsWithPrefix, resolveNats, streamHasPrefix } from "./nats.ts";
import { randomId } from "./net.ts";
import { createTestDatabase, ensureTemplateDatabase, resolvePostgres } from "./postgres.ts";
import { createS3Client, resolveS3 } from "./s3.ts";

async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    const r = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    return r.rowCount === 1;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("creates a uniquely named database and drops it even with open connections", async () => {
    const server = await resolvePostgres();
    try {
      const a = await createTestDatabase(server.adminUrl);
      const b = await createTestDatabase(server.adminUrl);
      expect(a.name).toMatch(/^t_\d+_[0-9a-f]{6}$/);
      expect(a.name).not.toBe(b.name);
      const client = new pg.Client(a.url);
      client.on("error", () => {});
      await client.connect();
      const r = await client.query<{ db: string }>("SELECT current_database() AS db");
      expect(r.rows[0]?.db).toBe(a.name);
      await a.drop(); // the client above is still connected: FORCE ends it
      await b.drop();
      expect(await databaseExists(server.adminUrl, a.name)).toBe(false);
      expect(await databaseExists(server.adminUrl, b.name)).toBe(false);
      await client.end().catch(() => {});
    } finally {
      await server.stop();
    }
  });
});

describe("template databases", () => {
  it("prepares a template once, copies it for each database, and makes again one whose making was cut off", async () => {
    const server = await resolvePostgres();
    const key = `test${randomId(8)}`;
    const query = async <T extends pg.QueryResultRow>(url: string, text: string) => {
      const client = new pg.Client(url);
      await client.connect();
      try {
        return (await client.query<T>(text)).rows;
      } finally {
        await client.end();
      }
    };
    let prepared = 0;
    const template = {
      key,
      async prepare(url: string) {
        prepared += 1;
        await query(url, "create table things (id int primary key); insert into things values (1), (2)");
      },
    };
    try {
      // Two runs at once: one prepares, the other waits for it and copies.
      const [a, b] = await Promise.all([createTestDatabase(server.adminUrl, template), createTestDatabase(server.adminUrl, template)]);
      expect(prepared).toBe(1);
      for (const db of [a, b]) expect(await query<{ id: number }>(db.url, "select id from things order by id")).toEqual([{ id: 1 }, { id: 2 }]);
      // A copy is the run's own: what a test writes stays out of the template and the other copy.
      await query(a.url, "insert into things values (3)");
      expect(await query(b.url, "select count(*)::int as n from things")).toEqual([{ n: 2 }]);
      await Promise.all([a.drop(), b.drop()]);

      // A template left without its "ready" mark (its process died while preparing it) is made again.
      await query(server.adminUrl, `comment on database "tmpl_${key}" is null`);
      await ensureTemplateDatabase(server.adminUrl, template);
      expect(prepared).toBe(2);
      await expect(ensureTemplateDatabase(server.adminUrl, { key: "Not A Key", prepare: async () => undefined })).rejects.toThrow(/template key/);
    } finally {
      await query(server.adminUrl, `drop database if exists "tmpl_${key}" with (force)`);
      await server.stop();
    }
  });
});

describe("stream clean-up by prefix", () => {
  it("matches stream names case-insensitively with . and - read as _", () => {
    expect(streamHasPrefix("T_AB12CD34_TICKETS", "t_ab12cd34_")).toBe(true);
    expect(streamHasPrefix("t-ab12cd34-events", "t_ab12cd34_")).toBe(true);
    expect(streamHasPrefix("KV_t_ab12cd34_cache", "t_ab12cd34_")).toBe(true);
    expect(streamHasPrefix("T_AB12CD35_TICKETS", "t_ab12cd34_")).toBe(false);
    expect(streamHasPrefix("TICKETS", "t_ab12cd34_")).toBe(false);
  });

  it("deletes only the streams of its own run", async () => {
    const nats = await resolveNats();
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const mine = "t_aaaa0001_";
      const other = "t_bbbb0002_";
      await jsm.streams.add({ name: "T_AAAA0001_TICKETS", subjects: [`${mine}tickets.>`] });
      await jsm.streams.add({ name: "t_aaaa0001_media", subjects: [`${mine}media.>`] });
      await jsm.streams.add({ name: "T_BBBB0002_TICKETS", subjects: [`${other}tickets.>`] });
      const deleted = await deleteStreamsWithPrefix(nats.url, mine);
      expect(deleted.sort()).toEqual(["T_AAAA0001_TICKETS", "t_aaaa0001_media"]);
      const left: string[] = [];
      for await (const name of jsm.streams.names()) left.push(name);
      expect(left).toContain("T_BBBB0002_TICKETS");
      expect(left).not.toContain("T_AAAA0001_TICKETS");
      await deleteStreamsWithPrefix(nats.url, other);
    } finally {
      await nc.close();
      await nats.stop();
    }
  });

  it("refuses an empty prefix", async () => {
    await expect(deleteStreamsWithPrefix("nats://127.0.0.1:1", "")).rejects.toThrow(/empty prefix/);
  });
});

describe("S3", () => {
  it("stores objects and refuses a wrong secret (SigV4 is checked)", async () => {
    const s3 = await resolveS3();
    const client = createS3Client(s3);
    const wrong = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: "not-the-secret" },
    });
    try {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: "hello.txt", Body: "hi" }));
      const got = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: "hello.txt" }));
      expect(await got.Body?.transformToString()).toBe("hi");
      await expect(wrong.send(new GetObjectCommand({ Bucket: s3.bucket, Key: "hello.txt" }))).rejects.toThrow();
    } finally {
      client.destroy();
      wrong.destroy();
      await s3.stop();
    }
  });
});

describe("createTestInfra", () => {
  it("gives a fresh database and prefix, and stop() removes both", async () => {
    const infra = await createTestInfra();
    expect(infra.natsPrefix).toMatch(/^t_[0-9a-f]{8}_$/);
    expect(infra.env.DATABASE_URL).toBe(infra.databaseUrl);
    const nc = await connect({ servers: infra.natsUrl });
    const jsm = await jetstreamManager(nc);
    const stream = `${infra.natsPrefix.toUpperCase()}EVENTS`;
    await jsm.streams.add({ name: stream, subjects: [`${infra.natsPrefix}events.>`] });
    const admin = infra.databaseUrl.replace(/\/[^/?]+(\?|$)/, "/postgres$1");
    expect(await databaseExists(admin, infra.databaseName)).toBe(true);

    await infra.stop();

    expect(await databaseExists(admin, infra.databaseName)).toBe(false);
    await expect(jsm.streams.info(stream)).rejects.toThrow(/not found/i);
    await nc.close();
  });
});
