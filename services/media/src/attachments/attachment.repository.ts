// Queries on media.attachments. Free functions taking the executor (pool or transaction);
// the rules of when to call them live in attachment.service.ts. Tombstones (deleted_at set)
// are invisible to every query but the tombstone sweep.
import { sql, type Kysely } from "@support/db";
import type { Selectable } from "kysely";
import type { MediaDatabase } from "../database.ts";
import type { Attachment, ErasureValues, FileType, NewUpload } from "./attachment.ts";
import type { AttachmentTable } from "./attachment.table.ts";

type Db = Kysely<MediaDatabase>;
type Row = Selectable<AttachmentTable>;

function toAttachment(row: Row): Attachment {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    objectKey: row.object_key,
    fileName: row.file_name ?? "",
    fileType: row.file_type as FileType,
    fileSize: Number(row.file_size),
    playerId: row.player_id,
    servicePlayerId: row.service_player_id,
    ticketId: row.ticket_id,
    uploaderSessionId: row.uploader_session_id,
    createdAt: row.created_at,
    uploadExpiresAt: row.upload_expires_at,
    uploadedAt: row.uploaded_at,
    usedAt: row.used_at,
  };
}

export async function insertAttachment(db: Db, id: string, objectKey: string, upload: NewUpload, uploadExpiresAt: Date): Promise<Attachment> {
  const row = await db
    .insertInto("attachments")
    .values({
      id,
      company_id: upload.companyId,
      game_id: upload.gameId,
      object_key: objectKey,
      file_name: upload.fileName,
      file_type: upload.fileType,
      file_size: upload.fileSize,
      player_id: upload.playerId,
      uploader_session_id: upload.uploaderSessionId,
      upload_expires_at: uploadExpiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAttachment(row);
}

export async function findAttachment(db: Db, companyId: string, id: string): Promise<Attachment | undefined> {
  const row = await db
    .selectFrom("attachments")
    .selectAll()
    .where("id", "=", id)
    .where("company_id", "=", companyId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return row && toAttachment(row);
}

/** The company's live attachments among `ids`, unordered (reads that show them). */
export async function findAttachments(db: Db, companyId: string, ids: string[]): Promise<Attachment[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("attachments")
    .selectAll()
    .where("id", "in", ids)
    .where("company_id", "=", companyId)
    .where("deleted_at", "is", null)
    .execute();
  return rows.map(toAttachment);
}

/** The company's live attachments among `ids`, locked until the transaction ends (claims). */
export async function lockAttachments(db: Db, companyId: string, ids: string[]): Promise<Attachment[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("attachments")
    .selectAll()
    .where("id", "in", ids)
    .where("company_id", "=", companyId)
    .where("deleted_at", "is", null)
    .orderBy("id")
    .forUpdate()
    .execute();
  return rows.map(toAttachment);
}

/** Records the first sighting of a complete upload; undefined when it was recorded already. */
export async function markUploaded(db: Db, id: string, at: Date): Promise<Attachment | undefined> {
  const row = await db
    .updateTable("attachments")
    .set({ uploaded_at: at })
    .where("id", "=", id)
    .where("uploaded_at", "is", null)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return row && toAttachment(row);
}

/** A claim: used from now on; the first ticket and service player named are kept. */
export async function markUsed(db: Db, ids: string[], at: Date, ticketId: string | null, servicePlayerId: string | null): Promise<Attachment[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable("attachments")
    .set({
      used_at: sql<Date>`coalesce(used_at, ${at})`,
      uploaded_at: sql<Date>`coalesce(uploaded_at, ${at})`,
      ticket_id: sql<string | null>`coalesce(ticket_id, ${ticketId}::uuid)`,
      service_player_id: sql<string | null>`coalesce(service_player_id, ${servicePlayerId}::uuid)`,
    })
    .where("id", "in", ids)
    .returningAll()
    .execute();
  return rows.map(toAttachment);
}

/** A player's live attachments (for the player's erasure), locked: by service player id, or by upload player id. */
export async function lockPlayerAttachments(db: Db, erasure: ErasureValues): Promise<Attachment[]> {
  const rows = await db
    .selectFrom("attachments")
    .selectAll()
    .where("company_id", "=", erasure.companyId)
    .where("deleted_at", "is", null)
    .where((eb) => {
      const byServiceId = eb("service_player_id", "=", erasure.servicePlayerId);
      if (!erasure.external) return byServiceId;
      return eb.or([byServiceId, eb.and([eb("game_id", "=", erasure.external.gameId), eb("player_id", "=", erasure.external.playerId)])]);
    })
    .orderBy("id")
    .forUpdate()
    .execute();
  return rows.map(toAttachment);
}

/** Unused uploads created before `cutoff`, oldest first; rows another replica holds are skipped. */
export async function lockUnusedBefore(db: Db, cutoff: Date, limit: number): Promise<Attachment[]> {
  const rows = await db
    .selectFrom("attachments")
    .selectAll()
    .where("used_at", "is", null)
    .where("deleted_at", "is", null)
    .where("created_at", "<", cutoff)
    .orderBy("created_at")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map(toAttachment);
}

/** Tombstones whose upload URL has expired: nothing can reappear under their key any more. */
export async function lockExpiredTombstones(db: Db, now: Date, limit: number): Promise<{ id: string; objectKey: string }[]> {
  const rows = await db
    .selectFrom("attachments")
    .select(["id", "object_key"])
    .where("deleted_at", "is not", null)
    .where("upload_expires_at", "<", now)
    .orderBy("upload_expires_at")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map((row) => ({ id: row.id, objectKey: row.object_key }));
}

export async function deleteAttachments(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("attachments").where("id", "in", ids).execute();
}

/** Keeps only what the tombstone sweep needs: no name, no player, no ticket. */
export async function markTombstones(db: Db, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("attachments")
    .set({ deleted_at: at, file_name: null, player_id: null, service_player_id: null, ticket_id: null })
    .where("id", "in", ids)
    .execute();
}
