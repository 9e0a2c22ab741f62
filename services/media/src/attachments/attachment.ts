// Attachments (POST /attachments, GET /attachments/{id}, their use by tickets and a player's
// erasure): the rules only, no SQL, no S3 calls, no RPC. An attachment is a row naming one object
// in the bucket, created when an upload is requested, marked uploaded when the object is first seen
// complete and used when a ticket claims it.
import { randomBytes } from "node:crypto";
import { isUuid, validationError, type ValidationIssue } from "@support/errors";

export const FILE_TYPES = [
  "image/svg+xml",
  "image/png",
  "image/jpeg",
  "image/gif",
  "application/pdf",
  "video/mp4",
  "video/quicktime",
  "text/plain",
  "application/zip",
  "application/vnd.rar",
] as const;

export type FileType = (typeof FILE_TYPES)[number];

/** An upload declares 1 byte to 200 MB (209,715,200 bytes). */
export const MAX_FILE_SIZE = 209_715_200;
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_PLAYER_ID_LENGTH = 255;
/** Most attachments one claim may name (one ticket message). */
export const MAX_CLAIM = 100;
/** Most attachments one description may name (a long conversation's files, one read). */
export const MAX_DESCRIBE = 1000;

export interface Attachment {
  id: string;
  companyId: string;
  gameId: string;
  objectKey: string;
  fileName: string;
  fileType: FileType;
  fileSize: number;
  /** The game's external player id given at upload. */
  playerId: string | null;
  /** The service player id linked by a claim. */
  servicePlayerId: string | null;
  /** The ticket that claimed it first; no other ticket can claim it. */
  ticketId: string | null;
  /** The uploader: a web support session, or null for the company's API key. */
  uploaderSessionId: string | null;
  createdAt: Date;
  uploadExpiresAt: Date;
  uploadedAt: Date | null;
  usedAt: Date | null;
}

/** What the storage knows of an object (HeadObject). */
export interface StoredObject {
  size: number;
  contentType: string | undefined;
}

/** The validated input of an upload request. */
export interface NewUpload {
  companyId: string;
  gameId: string;
  fileName: string;
  fileType: FileType;
  fileSize: number;
  playerId: string | null;
  uploaderSessionId: string | null;
}

// 18 random bytes: 144 bits, 24 base64url characters (A-Z a-z 0-9 - _), never a `/`: URL-safe and unguessable.
const ATTACHMENT_ID_BYTES = 18;
const attachmentIdPattern = /^[A-Za-z0-9_-]{24}$/;

export function newAttachmentId(): string {
  return randomBytes(ATTACHMENT_ID_BYTES).toString("base64url");
}

/** Whether a string can be an attachment id at all (anything else is unknown without a query). */
export function isAttachmentId(value: unknown): value is string {
  return typeof value === "string" && attachmentIdPattern.test(value);
}

/** The object's key: one prefix per company (and game), so a company's files are one listing. */
export function objectKeyOf(companyId: string, gameId: string, attachmentId: string): string {
  return `${companyId}/${gameId}/${attachmentId}`;
}

export function isFileType(value: unknown): value is FileType {
  return typeof value === "string" && (FILE_TYPES as readonly string[]).includes(value);
}

export interface UploadInput {
  companyId: string;
  gameId: string;
  fileName: string;
  fileType: string;
  fileSize: number | bigint;
  playerId?: string | null | undefined;
  /** The player side's session; absent for the company's API key. */
  sessionId?: string | null | undefined;
}

/** The upload request of POST /attachments: issues name the public body (`/fileSize`), so the gateway passes them through. */
export function parseUploadInput(input: UploadInput): NewUpload {
  const issues: ValidationIssue[] = [];
  if (!isUuid(input.companyId)) issues.push({ path: "/companyId", message: "must be a UUID" });
  if (!isUuid(input.gameId)) issues.push({ path: "/gameId", message: "must be a UUID" });
  const fileName = input.fileName;
  if (fileName.length === 0) issues.push({ path: "/fileName", message: "must not be empty" });
  else if (fileName.length > MAX_FILE_NAME_LENGTH) issues.push({ path: "/fileName", message: `must be at most ${MAX_FILE_NAME_LENGTH} characters` });
  else if (/[\u0000-\u001f\u007f]/.test(fileName)) issues.push({ path: "/fileName", message: "must not contain control characters" });
  if (!isFileType(input.fileType)) issues.push({ path: "/fileType", message: `must be one of ${FILE_TYPES.join(", ")}` });
  const size = Number(input.fileSize);
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_FILE_SIZE) issues.push({ path: "/fileSize", message: `must be an integer from 1 to ${MAX_FILE_SIZE}` });
  const playerId = input.playerId ?? null;
  if (playerId !== null && (playerId.length === 0 || playerId.length > MAX_PLAYER_ID_LENGTH)) {
    issues.push({ path: "/playerId", message: `must be 1 to ${MAX_PLAYER_ID_LENGTH} characters or null` });
  }
  const sessionId = input.sessionId || null;
  if (sessionId !== null && !isUuid(sessionId)) issues.push({ path: "/sessionId", message: "must be a UUID" });
  if (issues.length > 0) throw validationError(issues);
  return {
    companyId: input.companyId.toLowerCase(),
    gameId: input.gameId.toLowerCase(),
    fileName,
    fileType: input.fileType as FileType,
    fileSize: size,
    playerId,
    uploaderSessionId: sessionId?.toLowerCase() ?? null,
  };
}

// Types a browser could run or that are archives open as downloads; the others display inline.
// An SVG opened inline on the storage's origin could run script.
const DOWNLOAD_ONLY: ReadonlySet<FileType> = new Set(["image/svg+xml", "application/zip", "application/vnd.rar"]);

/**
 * The Content-Disposition stored with the object (it is a signed upload header, so the
 * storage keeps exactly this): the original file name as an ASCII fallback plus its RFC 5987
 * UTF-8 form. Only ASCII goes into a header; the key never carries the name.
 */
export function contentDispositionOf(fileName: string, fileType: FileType): string {
  const kind = DOWNLOAD_ONLY.has(fileType) ? "attachment" : "inline";
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Whether the stored object is the upload that was declared (it exists with the declared size). */
export function isCompleteUpload(attachment: Pick<Attachment, "fileSize" | "fileType">, stored: StoredObject | undefined): boolean {
  if (!stored) return false;
  if (stored.size !== attachment.fileSize) return false;
  return stored.contentType === undefined || stored.contentType === attachment.fileType;
}

export interface ClaimInput {
  companyId: string;
  gameId: string;
  attachmentIds: string[];
  ticketId?: string | null | undefined;
  servicePlayerId?: string | null | undefined;
  /** Who claims: the player side's session, or absent for the company's API key. */
  sessionId?: string | null | undefined;
}

export interface ClaimValues {
  companyId: string;
  gameId: string;
  attachmentIds: string[];
  ticketId: string | null;
  servicePlayerId: string | null;
  /** The claiming uploader: a session id, or null for the company. */
  sessionId: string | null;
}

export function parseClaimInput(input: ClaimInput): ClaimValues {
  const issues: ValidationIssue[] = [];
  if (!isUuid(input.companyId)) issues.push({ path: "/companyId", message: "must be a UUID" });
  if (!isUuid(input.gameId)) issues.push({ path: "/gameId", message: "must be a UUID" });
  const ticketId = input.ticketId ?? null;
  if (ticketId !== null && !isUuid(ticketId)) issues.push({ path: "/ticketId", message: "must be a UUID" });
  const servicePlayerId = input.servicePlayerId ?? null;
  if (servicePlayerId !== null && !isUuid(servicePlayerId)) issues.push({ path: "/servicePlayerId", message: "must be a UUID" });
  const sessionId = input.sessionId || null;
  if (sessionId !== null && !isUuid(sessionId)) issues.push({ path: "/sessionId", message: "must be a UUID" });
  if (input.attachmentIds.length > MAX_CLAIM) issues.push({ path: "/attachments", message: `must hold at most ${MAX_CLAIM} attachments` });
  if (issues.length > 0) throw validationError(issues);
  return {
    companyId: input.companyId.toLowerCase(),
    gameId: input.gameId.toLowerCase(),
    attachmentIds: input.attachmentIds,
    ticketId: ticketId?.toLowerCase() ?? null,
    servicePlayerId: servicePlayerId?.toLowerCase() ?? null,
    sessionId: sessionId?.toLowerCase() ?? null,
  };
}

/**
 * Whether a claim may use an attachment: one of the claim's game, uploaded by the claiming
 * uploader (the same player session, or the company's API key for both), and not used by
 * another ticket (the same ticket may claim it again: a retried message). Anything else looks
 * exactly like an unknown id, so that a claim never tells whose an attachment is.
 */
export function mayClaim(attachment: Pick<Attachment, "gameId" | "uploaderSessionId" | "ticketId" | "usedAt">, claim: ClaimValues): boolean {
  if (attachment.gameId !== claim.gameId) return false;
  if (attachment.uploaderSessionId !== claim.sessionId) return false;
  if (attachment.usedAt === null) return true;
  return claim.ticketId !== null && attachment.ticketId === claim.ticketId;
}

/** Why a claimed id is refused; the issue names its index in the public `attachments` array. */
export function claimIssue(index: number, reason: "unknown" | "incomplete"): ValidationIssue {
  return {
    path: `/attachments/${index}`,
    message: reason === "unknown" ? "is not an unused upload of yours for this game" : "upload is not complete (no object of the declared size in the storage)",
  };
}

export interface ErasureInput {
  companyId: string;
  servicePlayerId: string;
  gameId?: string | null | undefined;
  externalPlayerId?: string | null | undefined;
}

export interface ErasureValues {
  companyId: string;
  servicePlayerId: string;
  /** Also erase uploads made with this external player id in this game. */
  external: { gameId: string; playerId: string } | null;
}

export function parseErasureInput(input: ErasureInput): ErasureValues {
  const issues: ValidationIssue[] = [];
  if (!isUuid(input.companyId)) issues.push({ path: "/companyId", message: "must be a UUID" });
  if (!isUuid(input.servicePlayerId)) issues.push({ path: "/servicePlayerId", message: "must be a UUID" });
  const gameId = input.gameId ?? null;
  const playerId = input.externalPlayerId ?? null;
  if ((gameId === null) !== (playerId === null)) issues.push({ path: "", message: "give both gameId and externalPlayerId, or neither" });
  if (gameId !== null && !isUuid(gameId)) issues.push({ path: "/gameId", message: "must be a UUID" });
  if (playerId !== null && playerId.length === 0) issues.push({ path: "/externalPlayerId", message: "must not be empty" });
  if (issues.length > 0) throw validationError(issues);
  return {
    companyId: input.companyId.toLowerCase(),
    servicePlayerId: input.servicePlayerId.toLowerCase(),
    external: gameId !== null && playerId !== null ? { gameId: gameId.toLowerCase(), playerId } : null,
  };
}

/** Event types published on NATS; their data is defined by the event contract (libs/events, docs/events.md). */
export const attachmentEventTypes = {
  uploaded: "media.attachment.uploaded",
  deleted: "media.attachment.deleted",
} as const;

export type DeletionReason = "unused" | "player_erased";

/** No file name on the bus: it is the player's content, kept only where it can be erased. */
export function attachmentUploadedData(attachment: Attachment, uploadedAt: Date) {
  return {
    attachmentId: attachment.id,
    gameId: attachment.gameId,
    fileType: attachment.fileType,
    fileSize: attachment.fileSize,
    playerId: attachment.playerId,
    servicePlayerId: attachment.servicePlayerId,
    uploadedAt: uploadedAt.toISOString(),
  };
}

export function attachmentDeletedData(attachment: Pick<Attachment, "id" | "gameId">, reason: DeletionReason) {
  return { attachmentId: attachment.id, gameId: attachment.gameId, reason };
}
