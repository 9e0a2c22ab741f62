import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes, createCipheriv, createDecipheriv } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { StringValueSchema } from "@bufbuild/protobuf/wkt";
import { createDb, ensureDatabase, migrateToLatest, sql, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { createTestInfra, type TestInfra } from "@support/testkit";
import { createHandlerContext } from "@connectrpc/connect";
import { ContentService } from "@support/proto";
import { createIdempotencyKeysTable, createIdempotencyPurgeJob, idempotent, runIdempotent, type IdempotencyKeysTable } from "./index.ts";

// Runs against a real Postgres, in a database of this run's own (testkit).
interface Db extends IdempotencyKeysTable {
  notes: { id: number; body: string };
}

const companyA = "0b7c7a2e-1a51-4a5e-9a57-4d3f2b3c1a01";
const companyB = "0b7c7a2e-1a51-4a5e-9a57-4d3f2b3c1a02";

let infra: TestInfra;
let db: Kysely<Db>;

/** A use case that opens its own transaction, the way the services' use cases do. */
async function addNote(handle: Kysely<Db>, body: string, fail = false): Promise<{ value: string }> {
  return handle.transaction().execute(async (trx) => {
    const { id } = await trx.insertInto("notes").values({ body } as never).returning("id").executeTakeFirstOrThrow();
    if (fail) throw new Error("the work failed");
    return { value: `note ${id}` };
  });
}

const count = async () => (await db.selectFrom("notes").select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow()).n;

beforeAll(async () => {
  infra = await createTestInfra();
  await ensureDatabase(infra.databaseUrl);
  db = createDb<Db>({ url: infra.databaseUrl, schema: "idem_lib", maxConnections: 20 });
  await migrateToLatest(db, "idem_lib", {
    "0001_notes": { up: async (m) => void (await m.schema.createTable("notes").addColumn("id", "serial", (c) => c.primaryKey()).addColumn("body", "text").execute()) },
    "0002_idempotency": { up: createIdempotencyKeysTable },
  });
});

afterAll(async () => {
  await db?.destroy();
  await infra?.stop();
});

describe("runIdempotent", () => {
  it("does the work once, replays its answer, refuses another request with the key, and scopes keys per company", async () => {
    const request = { companyId: companyA, key: "k-1", fingerprint: "f-1" };
    const before = await count();
    const first = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "one"));
    const second = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "one"));
    expect(first.replayed).toBe(false);
    expect(second).toEqual({ response: first.response, replayed: true });
    expect(await count()).toBe(before + 1);

    await expect(runIdempotent(db, { ...request, fingerprint: "f-2" }, StringValueSchema, (h) => addNote(h, "two"))).rejects.toMatchObject({
      code: "idempotency_key_reused",
    });
    const other = await runIdempotent(db, { ...request, companyId: companyB }, StringValueSchema, (h) => addNote(h, "one"));
    expect(other.replayed).toBe(false);
    expect(other.response.value).not.toBe(first.response.value);
    expect(await count()).toBe(before + 2);
  });

  it("answers in_use while the first request is still running, and runs the work once for concurrent requests", async () => {
    const request = { companyId: companyA, key: "k-concurrent", fingerprint: "f" };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const before = await count();
    const first = runIdempotent(db, request, StringValueSchema, async (h) => {
      entered();
      await held;
      return addNote(h, "slow");
    });
    await inside;
    const concurrent = await Promise.allSettled(Array.from({ length: 10 }, () => runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "slow"))));
    expect(concurrent.every((r) => r.status === "rejected" && (r.reason as { code: string }).code === "idempotency_key_in_use")).toBe(true);
    release();
    const answer = await first;
    expect(await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "slow"))).toEqual({ response: answer.response, replayed: true });
    expect(await count()).toBe(before + 1);
  });

  it("records nothing for a failed request: the work and the record roll back together, and a retry runs again", async () => {
    const request = { companyId: companyA, key: "k-fail", fingerprint: "f" };
    const before = await count();
    await expect(runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "bad", true))).rejects.toThrow("the work failed");
    expect(await count()).toBe(before);
    expect(await db.selectFrom("idempotency_keys").selectAll().where("key", "=", "k-fail").execute()).toEqual([]);
    const retry = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "good"));
    expect(retry.replayed).toBe(false);
    expect(await count()).toBe(before + 1);
  });

  it("rolls back a nested transaction that failed and was caught, keeping the rest of the work", async () => {
    const request = { companyId: companyA, key: "k-nested", fingerprint: "f" };
    const before = await count();
    await runIdempotent(db, request, StringValueSchema, async (h) => {
      await addNote(h, "rolled back", true).catch(() => undefined);
      return addNote(h, "kept");
    });
    expect(await count()).toBe(before + 1);
    expect(await db.selectFrom("notes").select("body").where("body", "=", "rolled back").execute()).toEqual([]);
  });

  it("runs work that commits on its own outside the record's transaction, then records it", async () => {
    const request = { companyId: companyA, key: "k-own", fingerprint: "f" };
    const first = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "own"), { sameTransaction: false });
    const again = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "own"), { sameTransaction: false });
    expect(again).toEqual({ response: first.response, replayed: true });
  });
  it("stores a sealed answer when asked to, and replays the original from it", async () => {
    // AES-256-GCM, the way a service seals an answer that carries a secret.
    const key = randomBytes(32);
    const seal = {
      seal(bytes: Uint8Array) {
        const nonce = randomBytes(12);
        const cipher = createCipheriv("aes-256-gcm", key, nonce);
        const body = Buffer.concat([cipher.update(bytes), cipher.final()]);
        return new Uint8Array(Buffer.concat([nonce, cipher.getAuthTag(), body]));
      },
      open(bytes: Uint8Array) {
        const raw = Buffer.from(bytes);
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]));
      },
    };
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const request = { companyId: companyA, key: "k-sealed", fingerprint: "f" };
    const before = await count();
    const first = await runIdempotent(db, request, StringValueSchema, async (h) => ({ value: `${(await addNote(h, "sealed")).value} ${secret}` }), { seal });
    expect(first).toEqual({ response: expect.objectContaining({ value: expect.stringContaining(secret) }), replayed: false });

    const stored = await db.selectFrom("idempotency_keys").select("response").where("key", "=", "k-sealed").executeTakeFirstOrThrow();
    const storedText = Buffer.from(stored.response).toString("latin1");
    expect(storedText).not.toContain(secret);
    expect(storedText).not.toContain("whsec_");
    expect(Buffer.from(stored.response).equals(Buffer.from(toBinary(StringValueSchema, first.response)))).toBe(false);

    const again = await runIdempotent(db, request, StringValueSchema, (h) => addNote(h, "sealed"), { seal });
    expect(again).toEqual({ response: first.response, replayed: true });
    expect(again.response.value).toContain(secret);
    expect(await count()).toBe(before + 1);
  });
});

describe("idempotency purge job", () => {
  it("deletes the records older than the TTL and keeps the others", async () => {
    await db.deleteFrom("idempotency_keys").execute();
    const now = new Date("2026-12-01T12:00:00Z");
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    const row = (key: string, createdAt: Date) => ({ company_id: companyA, key, fingerprint: "f", response: new Uint8Array([1]), created_at: createdAt });
    await db.insertInto("idempotency_keys").values([row("old", hoursAgo(25)), row("older", hoursAgo(100)), row("fresh", hoursAgo(23))]).execute();
    const job = createIdempotencyPurgeJob(db, { ttlHours: 24, intervalMs: 0, logger: createLogger({ service: "test", level: "silent" }) });
    expect(await job.runOnce(now)).toBe(2);
    expect((await db.selectFrom("idempotency_keys").select("key").execute()).map((r) => r.key)).toEqual(["fresh"]);
    expect(await job.runOnce(now)).toBe(0);
  });
});

describe("idempotent (a Connect handler's wrapper)", () => {
  const method = ContentService.method.deleteAnnouncement;
  const contextWith = (headers: Record<string, string>) =>
    createHandlerContext({ service: ContentService, method, protocolName: "connect", requestMethod: "POST", url: "http://localhost/", requestHeader: headers });
  const handler = (init: { companyId: string; gameId?: string }, context: ReturnType<typeof contextWith>) =>
    idempotent(db, create(method.input, init), context, async (handle) => {
      const req = init;
      await addNote(handle, `cleared ${req.gameId ?? "shared"}`);
      return {};
    });

  it("runs the work as before without a key", async () => {
    const before = await count();
    const context = contextWith({});
    await handler({ companyId: companyA }, context);
    await handler({ companyId: companyA }, context);
    expect(await count()).toBe(before + 2);
    expect(context.responseHeader.get("idempotent-replayed")).toBeNull();
  });

  it("replays with idempotent-replayed: true, and fingerprints the request itself when the caller sends no fingerprint", async () => {
    const before = await count();
    const first = contextWith({ "idempotency-key": "rpc-key" });
    await handler({ companyId: companyA, gameId: "g-1" }, first);
    expect(first.responseHeader.get("idempotent-replayed")).toBeNull();
    const second = contextWith({ "idempotency-key": "rpc-key" });
    await handler({ companyId: companyA, gameId: "g-1" }, second);
    expect(second.responseHeader.get("idempotent-replayed")).toBe("true");
    expect(await count()).toBe(before + 1);
    await expect(handler({ companyId: companyA, gameId: "g-2" }, contextWith({ "idempotency-key": "rpc-key" }))).rejects.toMatchObject({
      code: "idempotency_key_reused",
    });
  });

  it("refuses a key over 255 characters", async () => {
    await expect(handler({ companyId: companyA }, contextWith({ "idempotency-key": "k".repeat(256) }))).rejects.toMatchObject({
      code: "invalid_argument",
      details: { issues: [{ path: "/header/Idempotency-Key" }] },
    });
  });
});
