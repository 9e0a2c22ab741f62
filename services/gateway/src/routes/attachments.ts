// POST /attachments and GET /attachments/{attachmentId}. The body is checked against the
// OpenAPI document before these handlers run; the game check, the signing and the "upload
// complete" rule live in the media service. The bytes never pass through here: clients PUT to
// and GET from the storage with the signed URLs.
import type { MediaClient } from "../clients.ts";
import { toCreateAttachmentUploadRequest, toUploadInstructionDto } from "../mappings/attachments.ts";
import { respond, type ApiRoutes } from "./api.ts";

export function registerAttachmentRoutes(api: ApiRoutes, deps: { media: MediaClient }): void {
  const { media } = deps;

  api.operation("createAttachment", async (ctx) => {
    const { body } = ctx.state.validated;
    const instruction = await media.createAttachmentUpload(
      toCreateAttachmentUploadRequest(ctx.state.companyId, body, { gameId: body.gameId, playerId: body.playerId ?? undefined }),
    );
    respond(ctx, 200, toUploadInstructionDto(instruction));
  });

  api.operation("getAttachment", async (ctx) => {
    const { downloadUrl } = await media.getAttachmentDownload({ companyId: ctx.state.companyId, attachmentId: ctx.state.validated.params.attachmentId });
    // 307 with no body at all (not Koa's "Redirecting to ..." text): the client follows Location.
    ctx.set("Location", downloadUrl);
    ctx.set("Cache-Control", "no-store");
    respond(ctx, 307, "");
    ctx.remove("Content-Type");
  });
}
