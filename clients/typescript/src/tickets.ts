import type { SupportClient } from "./client.ts";
import { SupportApiError } from "./errors.ts";
import type { components, operations } from "./gen/openapi.ts";

export type Ticket = components["schemas"]["Ticket"];
/** The filters and order of `GET /tickets` (`cursor` is handled by the iterators). */
export type ListTicketsQuery = Omit<NonNullable<operations["listTickets"]["parameters"]["query"]>, "cursor">;

export interface PageOptions {
  /** Resume a scan from the cursor of an earlier page (with the same filters and order). */
  cursor?: string;
  signal?: AbortSignal;
}

/**
 * The pages of `GET /tickets` for `query`, following `pagination.cursor` until it is null.
 * Each page is `{ tickets, cursor }`; `cursor` resumes the scan after that page. A failed
 * request throws `SupportApiError`.
 */
export async function* ticketPages(
  client: SupportClient,
  query: ListTicketsQuery = {},
  options: PageOptions = {},
): AsyncGenerator<{ tickets: Ticket[]; cursor: string | null }> {
  let cursor = options.cursor;
  for (;;) {
    const result = await client.GET("/tickets", {
      params: { query: cursor === undefined ? query : { ...query, cursor } },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!result.data) throw new SupportApiError(result.response, result.error);
    const next = result.data.pagination.cursor;
    yield { tickets: result.data.tickets, cursor: next };
    if (next === null) return;
    cursor = next;
  }
}

/** Every ticket matching `query`, one at a time, fetching pages as needed: `for await (const t of listTickets(client)) ...`. */
export async function* listTickets(client: SupportClient, query: ListTicketsQuery = {}, options: PageOptions = {}): AsyncGenerator<Ticket> {
  for await (const page of ticketPages(client, query, options)) yield* page.tickets;
}
