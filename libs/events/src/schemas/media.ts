// Events of the media service: an attachment's object was seen complete, or the attachment was
// deleted.
import { Type } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { DateTime, Nullable, OneOf, Uuid } from "./common.ts";

const AttachmentId = Type.String({ pattern: "^[A-Za-z0-9_-]{24}$", description: "The public attachment id" });

export const attachmentUploaded = defineEvent({
  type: "media.attachment.uploaded",
  description: "The service saw an attachment's object complete in storage (when a claim first checks it).",
  version: 1,
  schema: Type.Object({
    attachmentId: AttachmentId,
    gameId: Uuid(),
    fileType: OneOf(["image/svg+xml", "image/png", "image/jpeg", "image/gif", "application/pdf", "video/mp4", "video/quicktime", "text/plain", "application/zip", "application/vnd.rar"]),
    fileSize: Type.Integer({ minimum: 1, maximum: 209715200, description: "Bytes, as declared and verified" }),
    playerId: Nullable(Type.String(), "External player id given at upload (playerId of POST /attachments)"),
    servicePlayerId: Nullable(Uuid(), "Linked by the claim that first saw the upload complete, if any"),
    uploadedAt: DateTime("When the service first saw the object complete (not the PUT itself)"),
  }),
});

export const attachmentDeleted = defineEvent({
  type: "media.attachment.deleted",
  description:
    "An attachment was deleted. One swept as unused may never have been uploaded: it is published all the same (a client held its id).",
  version: 1,
  schema: Type.Object({
    attachmentId: AttachmentId,
    gameId: Uuid(),
    reason: OneOf(
      ["unused", "player_erased"],
      "unused: never claimed within UNUSED_ATTACHMENT_TTL_HOURS; player_erased: DeletePlayerAttachments, the player's data was erased",
    ),
  }),
});

export const mediaEvents = [attachmentUploaded, attachmentDeleted] as const;
