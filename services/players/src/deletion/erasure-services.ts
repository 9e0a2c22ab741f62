// What an erasure asks of the other services: tickets deletes the player's tickets, media
// its attachments and their stored objects, content tells whether the company may delete at
// once. Each call is idempotent, so a resumed erasure may repeat the step it was in.
import type { Client } from "@connectrpc/connect";
import type { ContentService, MediaService, TicketsService } from "@support/proto";
import type { ErasureCounts } from "./deletion.ts";

/** Deadline of one erasure call (at least; RPC_TIMEOUT_MS when longer). */
export const ERASURE_CALL_TIMEOUT_MS = 30_000;

export type TicketsClient = Client<typeof TicketsService>;
export type MediaClient = Client<typeof MediaService>;

export interface ErasureServices {
  /** tickets.ErasePlayerTickets: tickets with their events, breadcrumbs, tags and field values. */
  eraseTickets(companyId: string, playerId: string): Promise<ErasureCounts>;
  /** media.DeletePlayerAttachments: the player's attachments, rows and stored objects. */
  deleteAttachments(input: { companyId: string; playerId: string; gameId: string; externalId: string | null }): Promise<ErasureCounts>;
  /** content.GetCompany: whether DELETE /player is allowed (allowImmediateDeletion). */
  allowsImmediateDeletion(companyId: string): Promise<boolean>;
}

export function createErasureServices(clients: {
  tickets: TicketsClient;
  media: MediaClient;
  content: Client<typeof ContentService>;
}): ErasureServices {
  return {
    async eraseTickets(companyId, playerId) {
      const erased = await clients.tickets.erasePlayerTickets({ companyId, servicePlayerId: playerId });
      return {
        tickets: erased.deletedTickets,
        events: erased.deletedEvents,
        breadcrumbs: erased.deletedBreadcrumbs,
        tags: erased.deletedTags,
        fieldValues: erased.deletedFieldValues,
      };
    },
    async deleteAttachments({ companyId, playerId, gameId, externalId }) {
      // Uploads made with the game's playerId are the player's too, also those no ticket used.
      const byExternalId = externalId === null ? {} : { gameId, externalPlayerId: externalId };
      const deleted = await clients.media.deletePlayerAttachments({ companyId, servicePlayerId: playerId, ...byExternalId });
      return { attachments: deleted.deletedCount };
    },
    async allowsImmediateDeletion(companyId) {
      const { company } = await clients.content.getCompany({ companyId });
      return company?.allowImmediateDeletion === true;
    },
  };
}
