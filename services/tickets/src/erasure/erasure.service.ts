// Erasure of a player's tickets with their events and breadcrumbs, one step of the erasure the
// players service drives. Idempotent, and final: the player is marked erased under the same
// per-player lock that ticket creation takes, so a ticket created concurrently is either deleted
// here or refused there.
import { writeEvents } from "@support/bus";
import { isUuid, validationError } from "@support/errors";
import type { TicketsContext } from "../context.ts";
import * as domain from "../tickets/domain-events.ts";
import { lockPlayerForCreation } from "../tickets/ticket.repository.ts";
import { deleteTickets, lockPlayerTickets, markPlayerErased } from "./erasure.repository.ts";

export interface ErasedCounts {
  tickets: number;
  events: number;
  breadcrumbs: number;
  tags: number;
  fieldValues: number;
}

export async function erasePlayerTickets(ctx: TicketsContext, input: { companyId: string; servicePlayerId: string }): Promise<ErasedCounts> {
  if (!isUuid(input.servicePlayerId)) throw validationError([{ path: "/servicePlayerId", message: "must be a uuid" }]);
  const companyId = input.companyId.toLowerCase();
  const servicePlayerId = input.servicePlayerId.toLowerCase();
  const counts = await ctx.db.transaction().execute(async (trx) => {
    await lockPlayerForCreation(trx, companyId, servicePlayerId);
    await markPlayerErased(trx, companyId, servicePlayerId);
    const tickets = await lockPlayerTickets(trx, companyId, servicePlayerId);
    const { events, breadcrumbs } = await deleteTickets(trx, tickets.map((ticket) => ticket.id));
    await writeEvents(trx, tickets.map((ticket) => domain.ticketDeleted(companyId, ticket, "player_erased")));
    return {
      tickets: tickets.length,
      events,
      breadcrumbs,
      tags: tickets.reduce((sum, ticket) => sum + ticket.tags.length, 0),
      fieldValues: tickets.reduce((sum, ticket) => sum + Object.keys(ticket.fields).length, 0),
    };
  });
  // Ids and numbers only: the erased data must not survive in the logs either.
  ctx.logger.info({ companyId, servicePlayerId, ...counts }, "erased a player's tickets");
  return counts;
}
