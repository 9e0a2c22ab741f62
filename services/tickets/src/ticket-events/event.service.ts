// Reading a ticket's events (GET /tickets/{id}/events).
import type { TicketsContext } from "../context.ts";
import { getTicket } from "../tickets/ticket.service.ts";
import type { TicketEvent } from "./event.ts";
import { listAssigneeChanges, listPublicEvents } from "./event.repository.ts";

/** The public events of a ticket of the company, in creation order; NOT_FOUND for any other ticket. */
export async function listTicketEvents(ctx: TicketsContext, companyId: string, ticketId: string): Promise<TicketEvent[]> {
  const ticket = await getTicket(ctx, companyId, ticketId);
  return listPublicEvents(ctx.db, ticket.id);
}

/** Who the ticket was assigned to, when and by whom (a user, the API or routing), oldest first; NOT_FOUND for any other ticket. */
export async function listAssignmentHistory(ctx: TicketsContext, companyId: string, ticketId: string) {
  const ticket = await getTicket(ctx, companyId, ticketId);
  return listAssigneeChanges(ctx.db, ticket.id);
}
