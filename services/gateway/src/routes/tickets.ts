// Tickets: list, create, actions, events, breadcrumbs. The requests are checked against the
// OpenAPI document before these handlers run; every rule (filters, cursors, duplicates,
// states) lives in the tickets service. The mappings between the document's JSON and
// tickets.v1 are in mappings/tickets.ts.
import type { TicketsClient } from "../clients.ts";
import { toActionMessage, toBreadcrumbsDto, toCreateTicketRequest, toEventDtos, toListTicketsRequest, toTicketDto } from "../mappings/tickets.ts";
import { respond, type ApiRoutes } from "./api.ts";

export function registerTicketRoutes(api: ApiRoutes, deps: { tickets: TicketsClient }): void {
  const { tickets } = deps;

  api.operation("listTickets", async (ctx) => {
    const response = await tickets.listTickets(toListTicketsRequest(ctx.state.companyId, ctx.state.validated.query));
    respond(ctx, 200, { tickets: response.tickets.map(toTicketDto), pagination: { cursor: response.nextCursor ?? null } });
  });

  api.operation("createTicket", async (ctx) => {
    const response = await tickets.createTicket(toCreateTicketRequest(ctx.state.companyId, ctx.state.validated.body));
    respond(ctx, 200, { ticketId: response.ticketId, runningId: Number(response.runningId) });
  });

  api.operation("performTicketActions", async (ctx) => {
    const response = await tickets.performTicketActions({
      companyId: ctx.state.companyId,
      ticketId: ctx.state.validated.params.ticketId,
      apiKeyId: ctx.state.apiKeyId,
      actions: ctx.state.validated.body.actions.map(toActionMessage),
    });
    respond(ctx, 200, { success: response.success });
  });

  api.operation("listTicketEvents", async (ctx) => {
    const { events } = await tickets.listTicketEvents({ companyId: ctx.state.companyId, ticketId: ctx.state.validated.params.ticketId });
    respond(ctx, 200, { events: toEventDtos(events) });
  });

  api.operation("listTicketBreadcrumbs", async (ctx) => {
    const response = await tickets.listTicketBreadcrumbs({ companyId: ctx.state.companyId, ticketId: ctx.state.validated.params.ticketId });
    respond(ctx, 200, toBreadcrumbsDto(response));
  });
}
