// Tables of the players schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { DeletionTables } from "./deletion/deletion.table.ts";
import type { PlayerTables } from "./players/player.table.ts";
import type { RateLimitTables } from "./rate-limits/rate-limit.table.ts";
import type { EmailVerificationTables } from "./sessions/email-verification.table.ts";
import type { SupportSessionTables } from "./sessions/session.table.ts";

export type PlayersDatabase = OutboxTable & PlayerTables & SupportSessionTables & RateLimitTables & DeletionTables & EmailVerificationTables;
