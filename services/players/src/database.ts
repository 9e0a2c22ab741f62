// Tables of the players schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";

export type PlayersDatabase = OutboxTable;
