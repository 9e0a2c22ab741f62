// What other packages (the gateway's integration tests, the local stack) use of this service.
export type { PlayersDeps } from "./context.ts";
export { createServer, type PlayersServer } from "./server.ts";
export { loadPlayersConfig, type PlayersConfig } from "./config.ts";
export { migrations } from "./migrations/index.ts";
export type { PlayersDatabase } from "./database.ts";
export type { Player, Tier } from "./players/player.ts";
