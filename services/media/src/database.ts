// Tables of the media schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";

export type MediaDatabase = OutboxTable;
