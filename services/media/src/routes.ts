// media.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// attachments/attachment.ts, SQL in the repository, S3 in storage/.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { idempotent } from "@support/idempotency";
import { MediaService, type MediaAttachmentSchema } from "@support/proto";
import type { Attachment } from "./attachments/attachment.ts";
import { claimAttachments, createUpload, deletePlayerAttachments, describeAttachments, getDownload, storeAttachment, type MediaContext } from "./attachments/attachment.service.ts";

function attachmentMessage(attachment: Attachment): MessageInitShape<typeof MediaAttachmentSchema> {
  return {
    id: attachment.id,
    companyId: attachment.companyId,
    gameId: attachment.gameId,
    fileName: attachment.fileName,
    fileType: attachment.fileType,
    fileSize: BigInt(attachment.fileSize),
    playerId: attachment.playerId ?? undefined,
    servicePlayerId: attachment.servicePlayerId ?? undefined,
    ticketId: attachment.ticketId ?? undefined,
    createdAt: timestampFromDate(attachment.createdAt),
    uploadedAt: attachment.uploadedAt ? timestampFromDate(attachment.uploadedAt) : undefined,
    usedAt: attachment.usedAt ? timestampFromDate(attachment.usedAt) : undefined,
  };
}

export function registerRoutes(router: ConnectRouter, ctx: MediaContext): void {
  router.service(MediaService, {
    // With an Idempotency-Key, the use case runs in the transaction that records the key.
    createAttachmentUpload: (req, context) => idempotent(ctx.db, req, context, async (db) => {
      const instruction = await createUpload({ ...ctx, db }, req);
      return {
        attachmentId: instruction.attachment.id,
        uploadUrl: instruction.uploadUrl,
        uploadMethod: instruction.uploadMethod,
        uploadHeaders: instruction.uploadHeaders,
        uploadExpiresInSeconds: instruction.uploadExpiresInSeconds,
      };
    }),

    storeAttachment: async (req) => ({ attachment: attachmentMessage(await storeAttachment(ctx, req)) }),

    getAttachmentDownload: async (req) => {
      const download = await getDownload(ctx, req.companyId, req.attachmentId);
      return { downloadUrl: download.url, expiresInSeconds: download.expiresInSeconds };
    },

    claimAttachments: async (req) => ({ attachments: (await claimAttachments(ctx, req)).map(attachmentMessage) }),

    describeAttachments: async (req) => ({ attachments: (await describeAttachments(ctx, req.companyId, req.attachmentIds)).map(attachmentMessage) }),

    deletePlayerAttachments: async (req) => ({ deletedCount: await deletePlayerAttachments(ctx, req) }),
  });
}
