// Request builders shared by the integration tests.
import { randomUUID } from "node:crypto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CreateTicketRequestSchema, TicketActionSchema } from "@support/proto";
import type { TenantResult, TicketsTestContext } from "./context.ts";

/** The plain-object form of a message (not an already built message). */
type Init<T> = Exclude<T, { $typeName: string }>;
export type CreateInit = Init<MessageInitShape<typeof CreateTicketRequestSchema>>;
export type ActionInit = Init<MessageInitShape<typeof TicketActionSchema>>;

/** A valid CreateTicket request for the tenant's first game, with a unique player and message. */
export function createRequest(tenant: TenantResult, overrides: Partial<CreateInit> = {}): CreateInit {
  const unique = randomUUID();
  return {
    companyId: tenant.companyId,
    gameId: tenant.games.galaxy!.id,
    message: `Help with request ${unique}`,
    language: "en",
    channels: ["email"],
    player: { id: `player-${unique}`, name: "Pat", email: `pat-${unique}@example.com` },
    ...overrides,
  };
}

export async function createTicket(ctx: TicketsTestContext, tenant: TenantResult, overrides: Partial<CreateInit> = {}) {
  const response = await ctx.tickets.createTicket(createRequest(tenant, overrides));
  return { ticketId: response.ticketId, runningId: Number(response.runningId) };
}

export async function getTicket(ctx: TicketsTestContext, tenant: TenantResult, ticketId: string) {
  const { ticket } = await ctx.tickets.getTicket({ companyId: tenant.companyId, ticketId });
  return ticket!;
}

export function act(ctx: TicketsTestContext, tenant: TenantResult, ticketId: string, actions: ActionInit[], apiKeyId?: string) {
  return ctx.tickets.performTicketActions({ companyId: tenant.companyId, ticketId, actions, apiKeyId });
}

/** Runs `work` for 0..count-1 with at most `concurrency` in flight. */
export async function inParallel<T>(count: number, concurrency: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}
