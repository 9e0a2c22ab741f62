// The client against the real stack (gateway, content, players, tickets, media) started
// in-process with a tenant applied by the admin tool: every call goes over HTTP to the gateway.
import { startStack, type Stack } from "@support/gateway/test-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSupportClient, listTickets, SupportApiError, ticketPages, unwrap, type SupportClient } from "../src/index.ts";

const tenant = {
  company: { name: "Client Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "galaxy", name: "Galaxy Raiders", slug: "galaxy-client", languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
};

describe("the client against the real stack", () => {
  let stack: Stack;
  let client: SupportClient;
  let gameId: string;
  let counter = 0;

  const createTicket = () => {
    counter += 1;
    return unwrap(
      client.POST("/tickets", {
        body: {
          gameId,
          // Distinct first messages: a similar open ticket of the same player would be refused as a duplicate.
          message: `Request ${counter}: item ${counter * 7919} vanished from inventory slot ${counter}`,
          language: "en",
          channels: ["email"],
          metadata: { player: { id: `player-${counter}`, email: `p${counter}@example.com` } },
        },
      }),
    );
  };

  beforeAll(async () => {
    stack = await startStack();
    const applied = await stack.applyTenant(tenant);
    gameId = applied.games.galaxy!.id;
    client = createSupportClient({ baseUrl: stack.url, apiKey: applied.apiKeys.main! });
  });
  afterAll(() => stack?.stop());

  it("creates a ticket and reads it back", async () => {
    const created = await createTicket();
    expect(created.runningId).toBeGreaterThanOrEqual(1);
    const { data, error } = await client.GET("/tickets", { params: { query: { ticketId: created.ticketId } } });
    expect(error).toBeUndefined();
    expect(data?.tickets.map((ticket) => ticket.id)).toEqual([created.ticketId]);
    expect(data?.tickets[0]?.status).toBe("new");
  });

  it("pages through every ticket once with the iterator", async () => {
    const created = new Set<string>();
    for (let i = 0; i < 5; i++) created.add((await createTicket()).ticketId);
    const seen: string[] = [];
    for await (const ticket of listTickets(client, { gameId, limit: 2 })) seen.push(ticket.id);
    expect(seen.length).toBe(new Set(seen).size);
    for (const id of created) expect(seen).toContain(id);

    const pages: number[] = [];
    for await (const page of ticketPages(client, { gameId, limit: 2, order: "desc" })) pages.push(page.tickets.length);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.reduce((sum, n) => sum + n, 0)).toBe(seen.length);
  });

  it("acts on a ticket: sends a message and sets its status", async () => {
    const { ticketId } = await createTicket();
    const answer = await unwrap(
      client.POST("/tickets/{ticketId}/actions", {
        params: { path: { ticketId } },
        body: { actions: [{ type: "sendMessage", message: "We restored your item." }, { type: "setStatus", status: "waiting" }] },
      }),
    );
    expect(answer).toEqual({ success: true });
    const listed = await unwrap(client.GET("/tickets", { params: { query: { ticketId } } }));
    expect(listed.tickets[0]?.status).toBe("waiting");
    const events = await unwrap(client.GET("/tickets/{ticketId}/events", { params: { path: { ticketId } } }));
    expect(JSON.stringify(events)).toContain("We restored your item.");
  });

  it("surfaces a 4xx with the API's error body", async () => {
    const { data, error, response } = await client.GET("/tickets", { params: { query: { limit: 0 } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.code).toBe("invalid_argument");
    expect(error?.details).toMatchObject({ type: "VALIDATION_ERROR", issues: [expect.objectContaining({ path: "/query/limit" })] });

    const missing = await unwrap(
      client.POST("/tickets/{ticketId}/actions", {
        params: { path: { ticketId: "00000000-0000-4000-8000-000000000000" } },
        body: { actions: [{ type: "setStatus", status: "waiting" }] },
      }),
    ).catch((thrown: unknown) => thrown);
    expect(missing).toBeInstanceOf(SupportApiError);
    expect((missing as SupportApiError).status).toBe(404);
    expect((missing as SupportApiError).code).toBe("not_found");
    expect((missing as SupportApiError).requestId).toBeTruthy();
  });

  it("is refused without a valid key, like any caller", async () => {
    const stranger = createSupportClient({ baseUrl: stack.url, apiKey: "psk_not-a-key" });
    const { error, response } = await stranger.GET("/games");
    expect(response.status).toBe(403);
    expect(error?.code).toBe("unauthenticated");
  });
});
