// 4.7 POST /attachments and 4.8 GET /attachments/{attachmentId}. The body is checked against
// the OpenAPI document before these handlers run; the game check, the signing and the
// "upload complete" rule live in the media service. The bytes never pass through here: clients
// PUT to and GET from the storage with the signed URLs.
import type { MediaClient } from "../clients.ts";
import type { ApiRoutes } from "./api.ts";

interface CreateAttachmentBody {
  gameId: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  playerId?: string | null;
}

export function registerAttachmentRoutes(api: ApiRoutes, deps: { media: MediaClient }): void {
  const { media } = deps;

  api.operation("createAttachment", async (ctx) => {
    const body = ctx.state.validated.body as CreateAttachmentBody;
    const instruction = await media.createAttachmentUpload({
      companyId: ctx.state.companyId,
      gameId: body.gameId,
      fileName: body.fileName,
      fileType: body.fileType,
      fileSize: BigInt(body.fileSize),
      playerId: body.playerId ?? undefined,
    });
    ctx.body = {
      attachmentId: instruction.attachmentId,
      uploadUrl: instruction.uploadUrl,
      uploadMethod: instruction.uploadMethod,
      uploadHeaders: instruction.uploadHeaders,
      uploadExpiresInSeconds: instruction.uploadExpiresInSeconds,
    };
  });

  api.operation("getAttachment", async (ctx) => {
    const attachmentId = String(ctx.state.validated.params.attachmentId);
    const { downloadUrl } = await media.getAttachmentDownload({ companyId: ctx.state.companyId, attachmentId });
    // 307 with no body at all (not Koa's "Redirecting to ..." text): the client follows Location.
    ctx.status = 307;
    ctx.set("Location", downloadUrl);
    ctx.set("Cache-Control", "no-store");
    ctx.body = "";
    ctx.remove("Content-Type");
  });
}
