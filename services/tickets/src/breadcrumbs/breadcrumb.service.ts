// Reading (GET /tickets/{id}/breadcrumbs) and uploading (the player side) a ticket's SDK breadcrumbs.
import { validationError } from "@support/errors";
import type { TicketsContext } from "../context.ts";
import { findClientClockOffset, setClientClockOffset } from "../tickets/ticket.repository.ts";
import { getTicket } from "../tickets/ticket.service.ts";
import { breadcrumbIssues, type Breadcrumb } from "./breadcrumb.ts";
import { insertBreadcrumbs, listBreadcrumbs } from "./breadcrumb.repository.ts";

export async function listTicketBreadcrumbs(
  ctx: TicketsContext,
  companyId: string,
  ticketId: string,
): Promise<{ breadcrumbs: Breadcrumb[]; clientClockOffsetMs: number | null }> {
  const ticket = await getTicket(ctx, companyId, ticketId);
  const [breadcrumbs, clientClockOffsetMs] = await Promise.all([listBreadcrumbs(ctx.db, ticket.id), findClientClockOffset(ctx.db, ticket.id)]);
  return { breadcrumbs, clientClockOffsetMs };
}

export async function addTicketBreadcrumbs(
  ctx: TicketsContext,
  input: { companyId: string; ticketId: string; breadcrumbs: { message: string; clientOccurredAt: Date | undefined }[]; clientClockOffsetMs: number | null },
): Promise<number> {
  const issues = breadcrumbIssues(input.breadcrumbs);
  if (input.clientClockOffsetMs !== null && !Number.isSafeInteger(input.clientClockOffsetMs)) {
    issues.push({ path: "/clientClockOffsetMs", message: "must be an integer" });
  }
  if (issues.length > 0) throw validationError(issues);
  const ticket = await getTicket(ctx, input.companyId, input.ticketId);
  await ctx.db.transaction().execute(async (trx) => {
    await insertBreadcrumbs(trx, ticket.companyId, ticket.id, input.breadcrumbs as Breadcrumb[]);
    if (input.clientClockOffsetMs !== null) await setClientClockOffset(trx, ticket.id, input.clientClockOffsetMs);
  });
  return input.breadcrumbs.length;
}
