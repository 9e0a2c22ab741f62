// The README's examples, kept here so that the compiler checks them against the generated
// types (typecheck covers test/). Not a test file: nothing here runs.
import { createServer } from "node:http";
import { buffer } from "node:stream/consumers";
import { createSupportClient, listTickets, unwrap } from "../src/index.ts";
import { verifyWebhook } from "../src/webhooks.ts";

declare const gameId: string;
declare const ticketId: string;
declare function handle(event: unknown): Promise<void>;

export async function createATicket() {
  const client = createSupportClient({ baseUrl: "https://support.example.com", apiKey: process.env.SUPPORT_API_KEY! });
  const player = { id: "player-42", email: "pat@example.com" };
  const { ticketId, runningId } = await unwrap(client.POST("/tickets", { body: { gameId, message: "My ship vanished", language: "en", channels: ["email"], metadata: { player } } }));
  console.log(`ticket #${runningId}: ${ticketId}`);
  return client;
}

export async function pageThroughTickets(client: Awaited<ReturnType<typeof createATicket>>) {
  const query = { gameId, status: JSON.stringify(["new", "waiting"]), limit: 200 };
  for await (const ticket of listTickets(client, query)) {
    console.log(ticket.runningId, ticket.status, ticket.email);
  }
}

export async function actOnATicket(client: Awaited<ReturnType<typeof createATicket>>): Promise<boolean> {
  const { success } = await unwrap(client.POST("/tickets/{ticketId}/actions", {
    params: { path: { ticketId } },
    body: { actions: [{ type: "sendMessage", message: "We restored your ship." }, { type: "setStatus", status: "waiting" }] },
  }));
  return success;
}

export function receiveWebhooks() {
  createServer(async (req, res) => {
    let event; try { event = verifyWebhook(await buffer(req), req.headers, process.env.WEBHOOK_SECRET!); } catch { return res.writeHead(400).end(); }
    res.writeHead(204).end(); await handle(event);
  }).listen(3000);
}
