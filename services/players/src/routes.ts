// players.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// players/player.ts, SQL in the repository. Every request is scoped by its company_id.
import type { ConnectRouter } from "@connectrpc/connect";
import { PlayersService } from "@support/proto";
import type { Player } from "./players/player.ts";
import { blockPlayer, getPlayer, resolvePlayer, setPlayerInfo, unblockPlayer } from "./players/player.service.ts";
import type { PlayersDeps } from "./server.ts";

function playerMessage(player: Player) {
  return {
    id: player.id,
    companyId: player.companyId,
    gameId: player.gameId,
    externalId: player.externalId ?? undefined,
    name: player.name ?? undefined,
    email: player.email ?? undefined,
    tier: player.tier ?? undefined,
    blocked: player.blocked,
  };
}

export function registerRoutes(router: ConnectRouter, deps: PlayersDeps): void {
  const { db } = deps;
  router.service(PlayersService, {
    resolvePlayer: async (req) => {
      const { player, created } = await resolvePlayer(db, req);
      return { player: playerMessage(player), created };
    },

    getPlayer: async (req) => ({ player: playerMessage(await getPlayer(db, req.companyId, req.playerId)) }),

    setPlayerInfo: async (req) => ({ player: playerMessage(await setPlayerInfo(db, req.companyId, req.playerId, req)) }),

    blockPlayer: async (req) => ({ player: playerMessage((await blockPlayer(db, req)).player) }),

    unblockPlayer: async (req) => ({ player: playerMessage(await unblockPlayer(db, req)) }),
  });
}
