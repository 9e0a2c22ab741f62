// players.v1.PlayersAdminService (the operators' admin tool) mapped onto the admin use cases.
// Every call needs the admin token (ADMIN_TOKEN): the gate refuses it before the body is read.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { PlayersAdminService } from "@support/proto";
import { adminTokenGate } from "@support/rpc";
import { blockPlayers, cancelDeletionAsOperator, listDeletionSchedules, unblockPlayers } from "./admin/admin.service.ts";
import type { DeletionSchedule } from "./deletion/deletion.ts";
import { playerMessage } from "./routes.ts";
import type { PlayersDeps } from "./context.ts";

function scheduleMessage(schedule: DeletionSchedule) {
  return {
    scheduleId: schedule.id,
    playerId: schedule.playerId,
    companyId: schedule.companyId,
    gameId: schedule.gameId,
    requestedByType: schedule.requestedBy.type,
    requestedById: schedule.requestedBy.id ?? undefined,
    scheduledAt: timestampFromDate(schedule.createdAt),
    dueAt: timestampFromDate(schedule.dueAt),
  };
}

export function registerAdminRoutes(router: ConnectRouter, deps: PlayersDeps): void {
  const { db } = deps;
  router.service(
    PlayersAdminService,
    {
      blockPlayers: async (req) => ({
        players: (await blockPlayers(db, req.companyId, req.targets)).map(({ player, created }) => ({ player: playerMessage(player), created })),
      }),

      unblockPlayers: async (req) => ({
        players: (await unblockPlayers(db, req.companyId, req.targets)).map((player) => ({ player: playerMessage(player), created: false })),
      }),

      listDeletionSchedules: async (req) => ({ schedules: (await listDeletionSchedules(db, req.companyId)).map(scheduleMessage) }),

      cancelDeletion: async (req) => ({ schedule: scheduleMessage(await cancelDeletionAsOperator(db, req.playerId)) }),
    },
    { requestGate: adminTokenGate(deps.config.ADMIN_TOKEN) },
  );
}
