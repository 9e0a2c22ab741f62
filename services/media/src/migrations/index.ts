// Every migration of the media schema, in order. Migrations never import application code.
import type { Migration } from "@support/db";
import * as createOutbox from "./2026_11_22_00_00_00_create_outbox.ts";
import * as createAttachments from "./2026_11_24_00_00_00_create_attachments.ts";
import * as addOutboxTraceparent from "./2026_11_26_00_00_00_add_outbox_traceparent.ts";
import * as createIdempotencyKeys from "./2026_11_27_00_00_00_create_idempotency_keys.ts";
import * as addAttachmentUploader from "./2026_11_28_00_00_00_add_attachment_uploader.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_00_00_create_outbox": createOutbox,
  "2026_11_24_00_00_00_create_attachments": createAttachments,
  "2026_11_26_00_00_00_add_outbox_traceparent": addOutboxTraceparent,
  "2026_11_27_00_00_00_create_idempotency_keys": createIdempotencyKeys,
  "2026_11_28_00_00_00_add_attachment_uploader": addAttachmentUploader,
};
