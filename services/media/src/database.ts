// Tables of the media schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { AttachmentTables } from "./attachments/attachment.table.ts";

export type MediaDatabase = OutboxTable & AttachmentTables;
