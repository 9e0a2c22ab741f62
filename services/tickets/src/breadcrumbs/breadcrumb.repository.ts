// Queries on SDK breadcrumbs.
import type { Kysely } from "kysely";
import type { TicketsDatabase } from "../database.ts";
import type { Breadcrumb } from "./breadcrumb.ts";

type Db = Kysely<TicketsDatabase>;

export async function insertBreadcrumbs(trx: Db, companyId: string, ticketId: string, breadcrumbs: readonly Breadcrumb[]): Promise<void> {
  if (breadcrumbs.length === 0) return;
  await trx
    .insertInto("ticket_breadcrumbs")
    .values(breadcrumbs.map((b) => ({ ticket_id: ticketId, company_id: companyId, message: b.message, client_occurred_at: b.clientOccurredAt })))
    .execute();
}

/** A ticket's breadcrumbs in upload order. */
export async function listBreadcrumbs(db: Db, ticketId: string): Promise<Breadcrumb[]> {
  const rows = await db
    .selectFrom("ticket_breadcrumbs")
    .select(["message", "client_occurred_at"])
    .where("ticket_id", "=", ticketId)
    .orderBy("seq")
    .execute();
  return rows.map((row) => ({ message: row.message, clientOccurredAt: row.client_occurred_at }));
}
