// Attachments against real Postgres, NATS and an S3 that checks SigV4 signatures
// (@20minutes/s3rver): real PUTs of real bytes to the signed URLs, claims, downloads,
// the unused-upload sweep and erasure.
import { randomBytes, randomUUID } from "node:crypto";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { createS3Client } from "@support/testkit";
import { contractTypes, schemaProblems } from "./event-schemas.ts";
import { failureOf, startMedia, upload, type MediaTestContext } from "./context.ts";

const HOUR = 3_600_000;

let ctx: MediaTestContext;

beforeAll(async () => {
  ctx = await startMedia();
});
afterAll(() => ctx?.stop());

interface Declared {
  companyId: string;
  gameId: string;
  fileName?: string;
  fileType?: string;
  playerId?: string;
  /** The uploading web support session; absent for the company. */
  sessionId?: string;
}

/** Requests an upload for `bytes` (declared with their real size unless told otherwise). */
async function requestUpload(tenant: Declared, bytes: Uint8Array, fileSize = bytes.length) {
  return ctx.client.createAttachmentUpload({
    companyId: tenant.companyId,
    gameId: tenant.gameId,
    fileName: tenant.fileName ?? "screenshot.png",
    fileType: tenant.fileType ?? "image/png",
    fileSize: BigInt(fileSize),
    playerId: tenant.playerId,
    sessionId: tenant.sessionId,
  });
}

/** Requests and performs an upload; returns the attachment id. */
async function uploaded(tenant: Declared, bytes: Uint8Array = randomBytes(2048)): Promise<string> {
  const instruction = await requestUpload(tenant, bytes);
  expect((await upload(instruction, bytes)).status).toBe(200);
  return instruction.attachmentId;
}

async function download(companyId: string, attachmentId: string): Promise<Response> {
  const { downloadUrl } = await ctx.client.getAttachmentDownload({ companyId, attachmentId });
  return fetch(downloadUrl);
}

const keyOf = (tenant: { companyId: string; gameId: string }, attachmentId: string) => `${tenant.companyId}/${tenant.gameId}/${attachmentId}`;

async function rowOf(attachmentId: string) {
  const { rows } = await sql<{ uploaded_at: Date | null; used_at: Date | null; deleted_at: Date | null; file_name: string | null }>`
    select uploaded_at, used_at, deleted_at, file_name from media.attachments where id = ${attachmentId}`.execute(ctx.db);
  return rows[0];
}

describe("the upload instruction", () => {
  it("is a PUT to a pre-signed URL of the company's object, with the headers to send and the configured expiry", async () => {
    const tenant = ctx.newTenant();
    const instruction = await requestUpload({ ...tenant, fileName: "Crash (1).png" }, randomBytes(10));
    expect(instruction.attachmentId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(instruction.uploadMethod).toBe("PUT");
    expect(instruction.uploadExpiresInSeconds).toBe(900);
    expect(instruction.uploadHeaders).toEqual({
      "Content-Type": "image/png",
      "Content-Disposition": `inline; filename="Crash (1).png"; filename*=UTF-8''Crash%20%281%29.png`,
    });
    const url = new URL(instruction.uploadUrl);
    expect(url.origin).toBe(new URL(ctx.infra.s3.endpoint).origin);
    expect(url.pathname).toBe(`/${ctx.infra.s3.bucket}/${keyOf(tenant, instruction.attachmentId)}`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
    // Type, disposition and size are all bound by the signature.
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-disposition;content-length;content-type;host");
  });

  it("refuses a game the company does not have, like one that does not exist", async () => {
    const tenant = ctx.newTenant();
    const other = ctx.newTenant();
    for (const gameId of [other.gameId, randomUUID()]) {
      expect(await failureOf(requestUpload({ companyId: tenant.companyId, gameId }, randomBytes(1)))).toEqual({
        code: "not_found",
        message: "game not found",
        issues: undefined,
      });
    }
  });

  it("names every invalid field by its path in the public body", async () => {
    const tenant = ctx.newTenant();
    const failure = await failureOf(
      ctx.client.createAttachmentUpload({ ...tenant, fileName: "", fileType: "text/html", fileSize: 209_715_201n, playerId: "" }),
    );
    expect(failure.code).toBe("invalid_argument");
    expect(failure.issues?.map((i) => i.path)).toEqual(["/fileName", "/fileType", "/fileSize", "/playerId"]);
  });
});

describe("the storage enforces the signed upload", () => {
  it("stores the exact bytes sent with uploadMethod and uploadHeaders, and serves them back through the download URL", async () => {
    const tenant = ctx.newTenant();
    const bytes = randomBytes(256 * 1024);
    const instruction = await requestUpload({ ...tenant, fileName: "ログ 1.txt", fileType: "text/plain" }, bytes);
    expect(await upload(instruction, bytes)).toEqual({ status: 200, text: "" });

    const { downloadUrl, expiresInSeconds } = await ctx.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: instruction.attachmentId });
    expect(expiresInSeconds).toBe(300);
    expect(new URL(downloadUrl).searchParams.get("X-Amz-Expires")).toBe("300");
    const response = await fetch(downloadUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain");
    expect(response.headers.get("content-disposition")).toBe(`inline; filename="__ 1.txt"; filename*=UTF-8''%E3%83%AD%E3%82%B0%201.txt`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses another Content-Type than the declared one", async () => {
    const tenant = ctx.newTenant();
    const bytes = randomBytes(100);
    const instruction = await requestUpload(tenant, bytes);
    const refused = await upload(instruction, bytes, { ...instruction.uploadHeaders, "Content-Type": "image/jpeg" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("SignatureDoesNotMatch");
    expect(await ctx.storedSize(keyOf(tenant, instruction.attachmentId))).toBeUndefined();
  });

  it("refuses a body longer or shorter than the declared size", async () => {
    const tenant = ctx.newTenant();
    const instruction = await requestUpload(tenant, randomBytes(100));
    expect((await upload(instruction, randomBytes(101))).status).toBe(403);
    expect((await upload(instruction, randomBytes(100 * 1024))).status).toBe(403);
    expect((await upload(instruction, randomBytes(99))).status).toBe(403);
    expect(await ctx.storedSize(keyOf(tenant, instruction.attachmentId))).toBeUndefined();
  });

  it("refuses a tampered signature, another key and missing headers", async () => {
    const tenant = ctx.newTenant();
    const bytes = randomBytes(100);
    const instruction = await requestUpload(tenant, bytes);
    const tampered = instruction.uploadUrl.replace(/X-Amz-Signature=([0-9a-f])/, (_m, c: string) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`);
    expect(tampered).not.toBe(instruction.uploadUrl);
    expect((await upload({ ...instruction, uploadUrl: tampered }, bytes)).status).toBe(403);
    const otherKey = instruction.uploadUrl.replace(instruction.attachmentId, "A".repeat(24));
    expect((await upload({ ...instruction, uploadUrl: otherKey }, bytes)).status).toBe(403);
    expect((await upload(instruction, bytes, { "Content-Type": "image/png" })).status).toBe(403);
    expect((await upload(instruction, bytes, {})).status).toBe(403);
    expect(await ctx.storedKeys(`${tenant.companyId}/`)).toEqual([]);
  });
});

describe("expired URLs", () => {
  let short: MediaTestContext;
  beforeAll(async () => {
    short = await startMedia({ UPLOAD_URL_EXPIRES_SECONDS: "3", DOWNLOAD_URL_EXPIRES_SECONDS: "1" });
  });
  afterAll(() => short?.stop());

  // The timely upload is signed after the late one has expired, so it has its whole validity
  // (3 s) to reach the storage even on a loaded machine.
  it("the storage refuses an upload after uploadExpiresInSeconds, and a download URL after its expiry", async () => {
    const tenant = short.newTenant();
    const bytes = randomBytes(64);
    const late = await short.client.createAttachmentUpload({ ...tenant, fileName: "a.png", fileType: "image/png", fileSize: 64n });
    expect(late.uploadExpiresInSeconds).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 3100));
    const timely = await short.client.createAttachmentUpload({ ...tenant, fileName: "b.png", fileType: "image/png", fileSize: 64n });
    expect((await upload(timely, bytes)).status).toBe(200);
    const refused = await upload(late, bytes);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Request has expired");
    expect(await short.storedSize(keyOf(tenant, late.attachmentId))).toBeUndefined();

    const { downloadUrl, expiresInSeconds } = await short.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: timely.attachmentId });
    expect(expiresInSeconds).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await fetch(downloadUrl)).status).toBe(403);
  });
});

describe("downloads", () => {
  it("are not found for another company's attachment, an unknown or malformed id, and an upload that never completed", async () => {
    const tenant = ctx.newTenant();
    const other = ctx.newTenant();
    const done = await uploaded(tenant);
    const never = (await requestUpload(tenant, randomBytes(10))).attachmentId;
    const cases: [string, string][] = [
      [other.companyId, done],
      [tenant.companyId, never],
      [tenant.companyId, "A".repeat(24)],
      [tenant.companyId, "not/an-id"],
      [tenant.companyId, ""],
    ];
    for (const [companyId, attachmentId] of cases) {
      expect(await failureOf(ctx.client.getAttachmentDownload({ companyId, attachmentId }))).toEqual({
        code: "not_found",
        message: "attachment not found",
        issues: undefined,
      });
    }
    expect((await download(tenant.companyId, done)).status).toBe(200);
  });

  it("record the upload once, when first seen complete, and publish media.attachment.uploaded once", async () => {
    const tenant = { ...ctx.newTenant(), playerId: "player-7" };
    const bytes = randomBytes(1234);
    const instruction = await requestUpload(tenant, bytes);
    await failureOf(ctx.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: instruction.attachmentId }));
    expect((await rowOf(instruction.attachmentId))?.uploaded_at).toBeNull();
    await upload(instruction, bytes);
    await download(tenant.companyId, instruction.attachmentId);
    await download(tenant.companyId, instruction.attachmentId);
    expect((await rowOf(instruction.attachmentId))?.uploaded_at).toBeInstanceOf(Date);
    const events = (await ctx.publishedEvents()).filter((e) => e.data.attachmentId === instruction.attachmentId);
    expect(events.map((e) => e.type)).toEqual(["media.attachment.uploaded"]);
    expect(events[0]).toMatchObject({ companyId: tenant.companyId });
    expect(events[0]!.data).toEqual({
      attachmentId: instruction.attachmentId,
      gameId: tenant.gameId,
      fileType: "image/png",
      fileSize: 1234,
      playerId: "player-7",
      servicePlayerId: null,
      uploadedAt: expect.any(String),
    });
  });
});

describe("StoreAttachment (a player's mail's files)", () => {
  it("stores the bytes as a complete upload of the company, published once, claimable without a session, and served back", async () => {
    const tenant = ctx.newTenant();
    const bytes = randomBytes(3000);
    const { attachment } = await ctx.client.storeAttachment({ companyId: tenant.companyId, gameId: tenant.gameId, fileName: "crash.png", fileType: "image/png", content: bytes });
    expect(attachment).toMatchObject({ companyId: tenant.companyId, gameId: tenant.gameId, fileName: "crash.png", fileType: "image/png", fileSize: 3000n });
    expect((await rowOf(attachment!.id))?.uploaded_at).toBeInstanceOf(Date);
    const events = (await ctx.publishedEvents()).filter((e) => e.data.attachmentId === attachment!.id);
    expect(events.map((e) => e.type)).toEqual(["media.attachment.uploaded"]);
    const response = await download(tenant.companyId, attachment!.id);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect(response.headers.get("content-type")).toBe("image/png");
    const claimed = await ctx.client.claimAttachments({ companyId: tenant.companyId, gameId: tenant.gameId, attachmentIds: [attachment!.id], ticketId: randomUUID() });
    expect(claimed.attachments.map((a) => a.id)).toEqual([attachment!.id]);
    // A web support session cannot claim what the company stored.
    const other = await ctx.client.storeAttachment({ companyId: tenant.companyId, gameId: tenant.gameId, fileName: "b.txt", fileType: "text/plain", content: Buffer.from("hi") });
    expect(await failureOf(ctx.client.claimAttachments({ companyId: tenant.companyId, gameId: tenant.gameId, attachmentIds: [other.attachment!.id], ticketId: randomUUID(), sessionId: randomUUID() }))).toMatchObject({ code: "invalid_argument" });
  });

  it("refuses a type the platform does not take, an empty file and a game the company does not have, storing nothing", async () => {
    const tenant = ctx.newTenant();
    const before = (await sql<{ n: string }>`select count(*) as n from media.attachments where company_id = ${tenant.companyId}`.execute(ctx.db)).rows[0]!.n;
    const docx = await failureOf(ctx.client.storeAttachment({ companyId: tenant.companyId, gameId: tenant.gameId, fileName: "r.docx", fileType: "application/msword", content: Buffer.from("x") }));
    expect(docx).toMatchObject({ code: "invalid_argument", issues: [{ path: "/fileType" }] });
    const empty = await failureOf(ctx.client.storeAttachment({ companyId: tenant.companyId, gameId: tenant.gameId, fileName: "e.txt", fileType: "text/plain", content: new Uint8Array() }));
    expect(empty).toMatchObject({ code: "invalid_argument", issues: [{ path: "/fileSize" }] });
    expect(await failureOf(ctx.client.storeAttachment({ companyId: tenant.companyId, gameId: randomUUID(), fileName: "a.png", fileType: "image/png", content: Buffer.from("x") }))).toMatchObject({ code: "not_found" });
    const after = (await sql<{ n: string }>`select count(*) as n from media.attachments where company_id = ${tenant.companyId}`.execute(ctx.db)).rows[0]!.n;
    expect(after).toBe(before);
  });
});

describe("ClaimAttachments", () => {
  it("marks completed uploads of the game used, links the ticket and service player, and keeps the request order", async () => {
    const tenant = ctx.newTenant();
    const first = await uploaded(tenant);
    const second = await uploaded({ ...tenant, fileType: "application/pdf", fileName: "log.pdf" });
    await download(tenant.companyId, second); // seen complete before the claim
    const ticketId = randomUUID();
    const servicePlayerId = randomUUID();
    const { attachments } = await ctx.client.claimAttachments({ ...tenant, attachmentIds: [second, first], ticketId, servicePlayerId });
    expect(attachments.map((a) => a.id)).toEqual([second, first]);
    for (const attachment of attachments) {
      expect(attachment).toMatchObject({ companyId: tenant.companyId, gameId: tenant.gameId, ticketId, servicePlayerId, fileSize: 2048n });
      expect(attachment.uploadedAt).toBeDefined();
      expect(attachment.usedAt).toBeDefined();
    }
    expect(attachments[0]).toMatchObject({ fileName: "log.pdf", fileType: "application/pdf" });
    const events = (await ctx.publishedEvents()).filter((e) => [first, second].includes(e.data.attachmentId as string));
    expect(events.map((e) => [e.type, e.data.attachmentId])).toEqual([
      ["media.attachment.uploaded", second],
      ["media.attachment.uploaded", first],
    ]);
    expect(events[1]!.data.servicePlayerId).toBe(servicePlayerId);
  });

  it("names each bad id: unknown, another company's, another game's, never uploaded, or of another size; and marks none", async () => {
    const tenant = ctx.newTenant();
    const otherGame = randomUUID();
    ctx.games.get(tenant.companyId)!.add(otherGame);
    const other = ctx.newTenant();
    const good = await uploaded(tenant);
    const foreign = await uploaded(other);
    const wrongGame = await uploaded({ ...tenant, gameId: otherGame });
    const never = (await requestUpload(tenant, randomBytes(10))).attachmentId;
    // An object of another size under the key (written past the signed URL, straight to the bucket).
    const resized = (await requestUpload(tenant, randomBytes(10))).attachmentId;
    const s3 = createS3Client(ctx.infra.s3);
    await s3.send(new PutObjectCommand({ Bucket: ctx.infra.s3.bucket, Key: keyOf(tenant, resized), Body: randomBytes(11), ContentType: "image/png" }));
    s3.destroy();

    const failure = await failureOf(
      ctx.client.claimAttachments({ ...tenant, attachmentIds: [good, "A".repeat(24), foreign, wrongGame, never, "bad/id", resized] }),
    );
    expect(failure.code).toBe("invalid_argument");
    expect(failure.issues).toEqual([
      { path: "/attachments/1", message: "is not an unused upload of yours for this game" },
      { path: "/attachments/2", message: "is not an unused upload of yours for this game" },
      { path: "/attachments/3", message: "is not an unused upload of yours for this game" },
      { path: "/attachments/4", message: "upload is not complete (no object of the declared size in the storage)" },
      { path: "/attachments/5", message: "is not an unused upload of yours for this game" },
      { path: "/attachments/6", message: "upload is not complete (no object of the declared size in the storage)" },
    ]);
    expect((await rowOf(good))?.used_at).toBeNull();
    expect((await rowOf(foreign))?.used_at).toBeNull();
    // The good one alone is fine, and claiming it again for the same ticket (a retry) too.
    const ticketId = randomUUID();
    expect((await ctx.client.claimAttachments({ ...tenant, ticketId, attachmentIds: [good] })).attachments).toHaveLength(1);
    expect((await ctx.client.claimAttachments({ ...tenant, attachmentIds: [good, good], ticketId })).attachments.map((a) => a.id)).toEqual([good, good]);
    expect((await ctx.client.claimAttachments({ ...tenant, attachmentIds: [] })).attachments).toEqual([]);
  });

  it("lets only the uploader claim an upload, and only one ticket: a session its own, the company (no session) its own", async () => {
    const tenant = ctx.newTenant();
    const sessionA = randomUUID();
    const sessionB = randomUUID();
    const bySessionA = await uploaded({ ...tenant, sessionId: sessionA });
    const byCompany = await uploaded(tenant);
    const refused = async (claim: { sessionId?: string; ticketId?: string; attachmentIds: string[] }) => {
      const failure = await failureOf(ctx.client.claimAttachments({ ...tenant, ...claim }));
      expect(failure.code).toBe("invalid_argument");
      expect(failure.issues).toEqual([{ path: "/attachments/0", message: "is not an unused upload of yours for this game" }]);
    };
    await refused({ sessionId: sessionB, ticketId: randomUUID(), attachmentIds: [bySessionA] });
    await refused({ ticketId: randomUUID(), attachmentIds: [bySessionA] });
    await refused({ sessionId: sessionA, ticketId: randomUUID(), attachmentIds: [byCompany] });
    expect((await rowOf(bySessionA))?.used_at).toBeNull();

    const ticketId = randomUUID();
    expect((await ctx.client.claimAttachments({ ...tenant, sessionId: sessionA, ticketId, attachmentIds: [bySessionA] })).attachments[0]).toMatchObject({ ticketId });
    // Used: the same ticket may claim it again, no other ticket can, not even its uploader's.
    expect((await ctx.client.claimAttachments({ ...tenant, sessionId: sessionA, ticketId, attachmentIds: [bySessionA] })).attachments).toHaveLength(1);
    await refused({ sessionId: sessionA, ticketId: randomUUID(), attachmentIds: [bySessionA] });
    expect((await ctx.client.claimAttachments({ ...tenant, ticketId: randomUUID(), attachmentIds: [byCompany] })).attachments).toHaveLength(1);
    await refused({ ticketId: randomUUID(), attachmentIds: [byCompany] });
  });
});

describe("DescribeAttachments", () => {
  it("answers the company's attachments among the ids in their order, leaving out unknown, malformed and other companies' ids", async () => {
    const tenant = ctx.newTenant();
    const other = ctx.newTenant();
    const image = await uploaded({ ...tenant, fileName: "crash screen.png" });
    const log = await uploaded({ ...tenant, fileName: "game.log", fileType: "text/plain" });
    const pending = (await requestUpload({ ...tenant, fileName: "later.png" }, randomBytes(10))).attachmentId;
    const foreign = await uploaded(other);
    const { attachments } = await ctx.client.describeAttachments({
      companyId: tenant.companyId,
      attachmentIds: [log, foreign, "AAAAAAAAAAAAAAAAAAAAAAAA", "not an id", image, pending, log],
    });
    expect(attachments.map((a) => [a.id, a.fileName, a.fileType, a.fileSize])).toEqual([
      [log, "game.log", "text/plain", 2048n],
      [image, "crash screen.png", "image/png", 2048n],
      [pending, "later.png", "image/png", 10n],
    ]);
    expect((await ctx.client.describeAttachments({ companyId: other.companyId, attachmentIds: [image] })).attachments).toEqual([]);
  });
});

describe("the unused-upload sweep", () => {
  it("deletes uploads never claimed within the TTL (objects and rows), once each even with concurrent sweepers, and keeps claimed ones", async () => {
    const tenant = ctx.newTenant();
    const unusedDone = await uploaded(tenant);
    const unusedNever = (await requestUpload(tenant, randomBytes(10))).attachmentId;
    const claimed = await uploaded(tenant);
    await ctx.client.claimAttachments({ ...tenant, attachmentIds: [claimed] });

    // Not yet due: nothing happens.
    await ctx.server.sweep.runOnce(new Date(Date.now() + 23 * HOUR));
    expect(await rowOf(unusedDone)).toBeDefined();

    const later = new Date(Date.now() + 25 * HOUR);
    const [a, b] = await Promise.all([ctx.server.sweep.runOnce(later), ctx.server.sweep.runOnce(later)]);
    expect(a.unused + b.unused).toBeGreaterThanOrEqual(2);
    expect(await rowOf(unusedDone)).toBeUndefined();
    expect(await rowOf(unusedNever)).toBeUndefined();
    expect(await ctx.storedKeys(`${tenant.companyId}/`)).toEqual([keyOf(tenant, claimed)]);
    expect((await download(tenant.companyId, claimed)).status).toBe(200);
    expect((await failureOf(ctx.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: unusedDone }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.claimAttachments({ ...tenant, attachmentIds: [unusedDone] }))).issues?.[0]?.path).toBe("/attachments/0");

    const deleted = (await ctx.publishedEvents()).filter((e) => e.type === "media.attachment.deleted" && e.companyId === tenant.companyId);
    // Both sides in the same order: attachment ids mix upper and lower case, and localeCompare
    // orders them differently from a plain sort().
    const byAttachmentId = (x: { attachmentId?: unknown }, y: { attachmentId?: unknown }) =>
      String(x.attachmentId) < String(y.attachmentId) ? -1 : String(x.attachmentId) > String(y.attachmentId) ? 1 : 0;
    expect(deleted.map((e) => e.data as { attachmentId?: unknown }).sort(byAttachmentId)).toEqual(
      [unusedDone, unusedNever].map((attachmentId) => ({ attachmentId, gameId: tenant.gameId, reason: "unused" })).sort(byAttachmentId),
    );
  });
});

describe("DeletePlayerAttachments", () => {
  it("erases a player's claimed attachments and the uploads made with their playerId; idempotent; others untouched", async () => {
    const tenant = ctx.newTenant();
    const servicePlayerId = randomUUID();
    const claimed = await uploaded({ ...tenant, playerId: "p-1" });
    await ctx.client.claimAttachments({ ...tenant, attachmentIds: [claimed], servicePlayerId });
    const claimedWithoutPlayerId = await uploaded(tenant);
    await ctx.client.claimAttachments({ ...tenant, attachmentIds: [claimedWithoutPlayerId], servicePlayerId });
    const unclaimed = await uploaded({ ...tenant, playerId: "p-1" });
    const someoneElse = await uploaded({ ...tenant, playerId: "p-2" });
    await ctx.client.claimAttachments({ ...tenant, attachmentIds: [someoneElse], servicePlayerId: randomUUID() });

    const request = { companyId: tenant.companyId, servicePlayerId, gameId: tenant.gameId, externalPlayerId: "p-1" };
    // Another company naming the same player ids erases nothing.
    expect((await ctx.client.deletePlayerAttachments({ ...request, companyId: ctx.newTenant().companyId })).deletedCount).toBe(0);
    expect((await ctx.client.deletePlayerAttachments(request)).deletedCount).toBe(3);
    expect((await ctx.client.deletePlayerAttachments(request)).deletedCount).toBe(0);

    expect(await ctx.storedKeys(`${tenant.companyId}/`)).toEqual([keyOf(tenant, someoneElse)]);
    for (const id of [claimed, claimedWithoutPlayerId, unclaimed]) {
      expect((await failureOf(ctx.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: id }))).code).toBe("not_found");
    }
    expect((await download(tenant.companyId, someoneElse)).status).toBe(200);
    const deleted = (await ctx.publishedEvents()).filter((e) => e.type === "media.attachment.deleted" && e.companyId === tenant.companyId);
    expect(deleted).toHaveLength(3);
    expect(deleted.every((e) => e.data.reason === "player_erased")).toBe(true);
  });

  it("erases by service player id alone, and refuses half an external identity", async () => {
    const tenant = ctx.newTenant();
    const servicePlayerId = randomUUID();
    const id = await uploaded({ ...tenant, playerId: "p-9" });
    await ctx.client.claimAttachments({ ...tenant, attachmentIds: [id], servicePlayerId });
    expect((await failureOf(ctx.client.deletePlayerAttachments({ companyId: tenant.companyId, servicePlayerId, gameId: tenant.gameId }))).code).toBe("invalid_argument");
    expect((await ctx.client.deletePlayerAttachments({ companyId: tenant.companyId, servicePlayerId })).deletedCount).toBe(1);
    expect(await ctx.storedKeys(`${tenant.companyId}/`)).toEqual([]);
  });

  it("keeps a scrubbed tombstone while the upload URL is valid, so that a late upload is deleted by the sweep", async () => {
    const tenant = { ...ctx.newTenant(), playerId: "p-late", fileName: "secret name.png" };
    const bytes = randomBytes(32);
    const instruction = await requestUpload(tenant, bytes);
    expect((await ctx.client.deletePlayerAttachments({ companyId: tenant.companyId, servicePlayerId: randomUUID(), gameId: tenant.gameId, externalPlayerId: "p-late" })).deletedCount).toBe(1);
    expect(await rowOf(instruction.attachmentId)).toMatchObject({ deleted_at: expect.any(Date), file_name: null });
    // The signed URL cannot be revoked: the upload still lands, but nothing serves it...
    expect((await upload(instruction, bytes)).status).toBe(200);
    expect((await failureOf(ctx.client.getAttachmentDownload({ companyId: tenant.companyId, attachmentId: instruction.attachmentId }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.claimAttachments({ ...tenant, attachmentIds: [instruction.attachmentId] }))).code).toBe("invalid_argument");
    // ...and once the URL has expired the sweep deletes the object and the tombstone.
    expect(await ctx.server.sweep.runOnce(new Date(Date.now() + 10 * 60_000))).toEqual({ unused: 0, tombstones: 0 });
    expect((await ctx.server.sweep.runOnce(new Date(Date.now() + 16 * 60_000))).tombstones).toBeGreaterThanOrEqual(1);
    expect(await ctx.storedKeys(`${tenant.companyId}/`)).toEqual([]);
    expect(await rowOf(instruction.attachmentId)).toBeUndefined();
  });
});

describe("events", () => {
  it("has each event type in the contract, and every published event conforms to it", async () => {
    expect([...contractTypes].sort()).toEqual(["media.attachment.deleted", "media.attachment.uploaded"]);
    const events = await ctx.publishedEvents();
    expect(events.length).toBeGreaterThan(5);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const event of events) expect(schemaProblems(event)).toEqual([]);
    // Never two "uploaded" or two "deleted" for one attachment.
    const seen = events.map((e) => `${e.type} ${String(e.data.attachmentId)}`);
    expect(new Set(seen).size).toBe(seen.length);
    const pending = await sql<{ n: number }>`select count(*)::int as n from media.outbox`.execute(ctx.db);
    expect(pending.rows[0]?.n).toBe(0);
  });
});
