// RPC routes of the players service. Its contract (players.v1) arrives with the players issue;
// until then the service answers health checks only.
import type { ConnectRouter } from "@connectrpc/connect";
import type { PlayersDeps } from "./server.ts";

export function registerRoutes(_router: ConnectRouter, _deps: PlayersDeps): void {}
