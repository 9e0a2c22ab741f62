// Attachment use cases: request an upload, download, claim for a ticket, erase a player's
// attachments, sweep unused uploads. Each change writes its outbox events in its transaction.
// Objects are deleted inside the transaction that deletes their rows: if the storage fails the
// rows stay and the work is retried; if the commit fails after the objects went, the rows name
// missing objects, which reads treat as "not uploaded" and a retry finishes.
import type { NewEvent } from "@support/bus";
import { newEvent } from "@support/events";
import { writeEvents } from "@support/bus";
import type { Kysely } from "@support/db";
import { isUuid, notFound, validationError, type ValidationIssue } from "@support/errors";
import type { Logger } from "@support/logging";
import type { MediaDatabase } from "../database.ts";
import type { ObjectStorage } from "../storage/object-storage.ts";
import {
  MAX_DESCRIBE, attachmentDeletedData, attachmentEventTypes, attachmentUploadedData, claimIssue, contentDispositionOf, mayClaim, isAttachmentId,
  isCompleteUpload, newAttachmentId, objectKeyOf, parseClaimInput, parseErasureInput, parseUploadInput, type Attachment,
  type ClaimInput, type DeletionReason, type ErasureInput, type UploadInput,
} from "./attachment.ts";
import {
  deleteAttachments, findAttachment, findAttachments, insertAttachment, lockAttachments, lockExpiredTombstones, lockPlayerAttachments,
  lockUnusedBefore, markTombstones, markUploaded, markUsed,
} from "./attachment.repository.ts";

type Db = Kysely<MediaDatabase>;

/** Whether a game is a live game of a company (content owns games). */
export interface GameDirectory {
  /** Resolves for a live game of the company; throws NOT_FOUND "game not found" otherwise. */
  requireGame(companyId: string, gameId: string): Promise<void>;
}

export interface MediaContext {
  db: Db;
  storage: ObjectStorage;
  games: GameDirectory;
  logger: Logger;
  uploadExpiresInSeconds: number;
  downloadExpiresInSeconds: number;
  unusedTtlHours: number;
}

/** The attachment upload instruction: where and how to PUT the file, and for how long. */
export interface UploadInstruction {
  attachment: Attachment;
  uploadUrl: string;
  uploadMethod: "PUT";
  uploadHeaders: Record<string, string>;
  uploadExpiresInSeconds: number;
}

const attachmentNotFound = () => notFound("attachment not found");

function uploadedEvent(attachment: Attachment, at: Date): NewEvent {
  return newEvent(attachmentEventTypes.uploaded, attachment.companyId, attachmentUploadedData(attachment, at));
}

function deletedEvent(attachment: Attachment, reason: DeletionReason): NewEvent {
  return newEvent(attachmentEventTypes.deleted, attachment.companyId, attachmentDeletedData(attachment, reason));
}

/** Runs `work` over `items` with at most `limit` in flight; fails with the first failure. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

const deleteObjects = (ctx: MediaContext, keys: string[]) => eachLimited(keys, 8, (key) => ctx.storage.delete(key));

/** POST /attachments: registers the upload, then signs a PUT binding its type, disposition and size. */
export async function createUpload(ctx: MediaContext, input: UploadInput): Promise<UploadInstruction> {
  const upload = parseUploadInput(input);
  await ctx.games.requireGame(upload.companyId, upload.gameId);
  const id = newAttachmentId();
  const key = objectKeyOf(upload.companyId, upload.gameId, id);
  const expiresIn = ctx.uploadExpiresInSeconds;
  // The row exists before anyone holds the URL, so every object that can appear is swept.
  const attachment = await insertAttachment(ctx.db, id, key, upload, new Date(Date.now() + expiresIn * 1000));
  const signed = await ctx.storage.presignUpload({
    key,
    contentType: upload.fileType,
    contentLength: upload.fileSize,
    contentDisposition: contentDispositionOf(upload.fileName, upload.fileType),
    expiresInSeconds: expiresIn,
  });
  return { attachment, uploadUrl: signed.url, uploadMethod: "PUT", uploadHeaders: signed.headers, uploadExpiresInSeconds: expiresIn };
}

/**
 * A file the platform received itself (an attachment of a player's mail): registered like the
 * company's upload with the same checks, written by the service, complete at once.
 */
export async function storeAttachment(
  ctx: MediaContext,
  input: { companyId: string; gameId: string; fileName: string; fileType: string; content: Uint8Array },
): Promise<Attachment> {
  const upload = parseUploadInput({ companyId: input.companyId, gameId: input.gameId, fileName: input.fileName, fileType: input.fileType, fileSize: BigInt(input.content.length) });
  await ctx.games.requireGame(upload.companyId, upload.gameId);
  const id = newAttachmentId();
  const key = objectKeyOf(upload.companyId, upload.gameId, id);
  // The row first, as for an upload: an object written and then not recorded would never be swept.
  const attachment = await insertAttachment(ctx.db, id, key, upload, new Date());
  await ctx.storage.put({ key, body: input.content, contentType: upload.fileType, contentDisposition: contentDispositionOf(upload.fileName, upload.fileType) });
  await recordUploaded(ctx, attachment);
  return (await findAttachment(ctx.db, upload.companyId, id)) ?? attachment;
}

/** Records the first sighting of a complete upload, with its event, once. */
async function recordUploaded(ctx: MediaContext, attachment: Attachment): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const at = new Date();
    const marked = await markUploaded(trx, attachment.id, at);
    if (marked) await writeEvents(trx, [uploadedEvent(marked, at)]);
  });
}

/** GET /attachments/{id}: a signed GET (valid at most 5 minutes) of a completed upload of the company; anything else is not found. */
export async function getDownload(ctx: MediaContext, companyId: string, attachmentId: string): Promise<{ url: string; expiresInSeconds: number }> {
  if (!isUuid(companyId) || !isAttachmentId(attachmentId)) throw attachmentNotFound();
  const attachment = await findAttachment(ctx.db, companyId.toLowerCase(), attachmentId);
  if (!attachment) throw attachmentNotFound();
  if (attachment.uploadedAt === null) {
    if (!isCompleteUpload(attachment, await ctx.storage.head(attachment.objectKey))) throw attachmentNotFound();
    await recordUploaded(ctx, attachment);
  }
  const expiresInSeconds = ctx.downloadExpiresInSeconds;
  return { url: await ctx.storage.presignDownload(attachment.objectKey, expiresInSeconds), expiresInSeconds };
}

/**
 * What a conversation shows of its files (name, type, size), in the order asked; unknown ids,
 * another company's and erased ones are left out. The storage is not asked: a file shown here
 * may still be an incomplete upload, which its download answers.
 */
export async function describeAttachments(ctx: MediaContext, companyId: string, attachmentIds: string[]): Promise<Attachment[]> {
  if (attachmentIds.length > MAX_DESCRIBE) throw validationError([{ path: "/attachmentIds", message: `must hold at most ${MAX_DESCRIBE} ids` }]);
  if (!isUuid(companyId)) return [];
  const wellFormed = [...new Set(attachmentIds.filter(isAttachmentId))];
  const found = new Map((await findAttachments(ctx.db, companyId.toLowerCase(), wellFormed)).map((a) => [a.id, a]));
  return wellFormed.flatMap((id) => found.get(id) ?? []);
}

/**
 * Attachments of a new ticket or message: every id must be an attachment of the company and
 * game, uploaded by the claiming uploader and not used by another ticket (mayClaim), whose
 * object exists with the declared size. All or nothing: one bad id refuses the claim, with an
 * issue per bad id.
 */
export async function claimAttachments(ctx: MediaContext, input: ClaimInput): Promise<Attachment[]> {
  const claim = parseClaimInput(input);
  if (claim.attachmentIds.length === 0) return [];
  return ctx.db.transaction().execute(async (trx) => {
    // Locked so that the sweep (SKIP LOCKED) cannot delete them while they are being claimed,
    // and a claim waits for a sweep or erasure that holds them (and then finds them gone).
    const wellFormed = [...new Set(claim.attachmentIds.filter(isAttachmentId))];
    const rows = new Map((await lockAttachments(trx, claim.companyId, wellFormed)).map((a) => [a.id, a]));
    const issues: ValidationIssue[] = [];
    const toVerify: Attachment[] = [];
    claim.attachmentIds.forEach((id, index) => {
      const attachment = rows.get(id);
      if (!attachment || !mayClaim(attachment, claim)) issues.push(claimIssue(index, "unknown"));
      else if (attachment.uploadedAt === null && !toVerify.includes(attachment)) toVerify.push(attachment);
    });
    const incomplete = new Set<string>();
    await eachLimited(toVerify, 8, async (attachment) => {
      if (!isCompleteUpload(attachment, await ctx.storage.head(attachment.objectKey))) incomplete.add(attachment.id);
    });
    claim.attachmentIds.forEach((id, index) => {
      if (incomplete.has(id)) issues.push(claimIssue(index, "incomplete"));
    });
    if (issues.length > 0) throw validationError(issues.sort((a, b) => a.path.localeCompare(b.path, "en", { numeric: true })));

    const at = new Date();
    const claimed = new Map((await markUsed(trx, [...rows.keys()], at, claim.ticketId, claim.servicePlayerId)).map((a) => [a.id, a]));
    await writeEvents(trx, toVerify.map((before) => uploadedEvent(claimed.get(before.id)!, at)));
    return claim.attachmentIds.map((id) => claimed.get(id)!);
  });
}

/**
 * A player's erasure: deletes every attachment of a player, objects and rows; idempotent. An
 * attachment whose upload URL is still valid stays as a tombstone, so that an upload racing the
 * erasure is deleted by the sweep once the URL has expired.
 */
export async function deletePlayerAttachments(ctx: MediaContext, input: ErasureInput): Promise<number> {
  const erasure = parseErasureInput(input);
  return ctx.db.transaction().execute(async (trx) => {
    const attachments = await lockPlayerAttachments(trx, erasure);
    if (attachments.length === 0) return 0;
    await deleteObjects(ctx, attachments.map((a) => a.objectKey));
    const now = new Date();
    const stillUploadable = attachments.filter((a) => a.uploadExpiresAt > now).map((a) => a.id);
    await markTombstones(trx, stillUploadable, now);
    await deleteAttachments(trx, attachments.filter((a) => a.uploadExpiresAt <= now).map((a) => a.id));
    await writeEvents(trx, attachments.map((a) => deletedEvent(a, "player_erased")));
    ctx.logger.info({ companyId: erasure.companyId, deleted: attachments.length }, "erased a player's attachments");
    return attachments.length;
  });
}

/**
 * One batch of the unused-upload sweep as of `now`: uploads never claimed within the TTL lose
 * their object and row. SKIP LOCKED: with several replicas each attachment is swept once.
 */
export async function sweepUnusedBatch(ctx: MediaContext, now: Date, limit: number): Promise<number> {
  const cutoff = new Date(now.getTime() - ctx.unusedTtlHours * 3_600_000);
  return ctx.db.transaction().execute(async (trx) => {
    const expired = await lockUnusedBefore(trx, cutoff, limit);
    if (expired.length === 0) return 0;
    await deleteObjects(ctx, expired.map((a) => a.objectKey));
    await deleteAttachments(trx, expired.map((a) => a.id));
    await writeEvents(trx, expired.map((a) => deletedEvent(a, "unused")));
    return expired.length;
  });
}

/** One batch of tombstones whose upload URL expired: delete a late object, then the row. */
export async function sweepTombstonesBatch(ctx: MediaContext, now: Date, limit: number): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const tombstones = await lockExpiredTombstones(trx, now, limit);
    if (tombstones.length === 0) return 0;
    await deleteObjects(ctx, tombstones.map((t) => t.objectKey));
    await deleteAttachments(trx, tombstones.map((t) => t.id));
    return tombstones.length;
  });
}
