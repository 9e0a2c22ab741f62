// Attachments between REST and media.v1. media.v1 carries the upload method as a string and the
// upload headers as a plain map; media only signs PUT uploads and always signs Content-Type, so
// they are narrowed to the document's "PUT" and required `Content-Type` with `as`.
import type { CreateAttachmentUploadRequestSchema, CreateAttachmentUploadResponse } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import type { Init } from "./init.ts";

export function toCreateAttachmentUploadRequest(
  companyId: string,
  body: Schemas["CreateAttachmentRequest"] | Schemas["PlayerCreateAttachmentRequest"] | Schemas["AgentCreateAttachmentRequest"],
  owner: { gameId: string; playerId: string | undefined; sessionId?: string | undefined },
): Init<typeof CreateAttachmentUploadRequestSchema> {
  return {
    companyId,
    gameId: owner.gameId,
    fileName: body.fileName,
    fileType: body.fileType,
    fileSize: BigInt(body.fileSize),
    playerId: owner.playerId,
    // The uploader: only a claim by the same session (or, without one, the company) may use it.
    sessionId: owner.sessionId,
  };
}

export function toUploadInstructionDto(instruction: CreateAttachmentUploadResponse): Schemas["AttachmentUploadInstruction"] {
  return {
    attachmentId: instruction.attachmentId,
    uploadUrl: instruction.uploadUrl,
    uploadMethod: instruction.uploadMethod as Schemas["AttachmentUploadInstruction"]["uploadMethod"],
    uploadHeaders: instruction.uploadHeaders as Schemas["AttachmentUploadInstruction"]["uploadHeaders"],
    uploadExpiresInSeconds: instruction.uploadExpiresInSeconds,
  };
}
