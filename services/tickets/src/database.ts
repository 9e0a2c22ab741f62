// Tables of the tickets schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";

export type TicketsDatabase = OutboxTable;
