// Tables of the players schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { PlayerTables } from "./players/player.table.ts";

/** The schema every players table lives in. Queries name it explicitly (see outbox.ts). */
export const PLAYERS_SCHEMA = "players";

export type PlayersDatabase = OutboxTable & PlayerTables;
