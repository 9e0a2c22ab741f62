// What other packages (the gateway's integration tests, the local stack, the admin command) use
// of this service.
export { createServer, type PlayersDeps, type PlayersServer } from "./server.ts";
export { loadPlayersConfig, type PlayersConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { PlayersDatabase } from "./database.ts";
export type { Player, Tier } from "./players/player.ts";
export {
  blockPlayer,
  blockPlayersWithExecutor,
  migratePlayersSchema,
  unblockPlayer,
  type AdminPlayerRequest,
  type AdminPlayerResult,
  type PlayerTarget,
} from "./admin/block-players.ts";
export {
  cancelScheduledDeletion,
  listScheduledDeletions,
  type AdminScheduleResult,
} from "./admin/deletion-schedules.ts";
