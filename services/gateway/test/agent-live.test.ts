// The agents' live side end to end on two gateway replicas over the real tickets service and
// NATS: a ticket created through the public API reaches the stream of an agent of its game (and
// of no one else); presence said on one replica reaches a stream on the other; a stream that
// reconnects on the other replica with Last-Event-ID gets the change it missed, once; presence
// needs CSRF and a ticket in scope; signing out everywhere ends the stream.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@studio.example`, bob: `bob-${suffix}@studio.example`, fay: `fay-${suffix}@studio.example`, olga: `olga-${suffix}@elsewhere.example` };

type Agent = SignedInAgent;

interface Frame {
  id?: string;
  event?: string;
  data?: Record<string, unknown>;
}

/** An open stream: the frames read so far (comments left out), and a way to end it. */
interface OpenStream {
  status: number;
  frames: Frame[];
  ended: () => boolean;
  close(): void;
}

let stack: Stack;
let replica: Awaited<ReturnType<Stack["startGateway"]>>;
let tenant: TenantResult;
const agents = {} as Record<keyof typeof emails, Agent>;
const streams: OpenStream[] = [];

const signIn = (url: string, email: string) => signInAgent(url === stack.url ? stack : replica, email, PASSWORD);

function openStream(url: string, agent: Agent, lastEventId?: string): Promise<OpenStream> {
  return readStream(`${url}/agent-api/stream`, { cookie: agent.cookie, ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}) });
}

/** A stream read frame by frame, as a browser's page reads it. */
async function readStream(address: string, headers: Record<string, string>): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(address, { headers, signal: controller.signal });
  const stream: OpenStream = { status: response.status, frames: [], ended: () => ended, close: () => controller.abort() };
  let ended = response.body === null;
  if (response.body) {
    void (async () => {
      let buffer = "";
      try {
        for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith(":")) continue;
            const frame: Frame = {};
            for (const line of block.split("\n")) {
              const colon = line.indexOf(": ");
              const [field, value] = [line.slice(0, colon), line.slice(colon + 2)];
              if (field === "id") frame.id = value;
              if (field === "event") frame.event = value;
              if (field === "data") frame.data = JSON.parse(value) as Record<string, unknown>;
            }
            stream.frames.push(frame);
          }
        }
      } catch {
        // aborted by the test
      }
      ended = true;
    })();
  }
  streams.push(stream);
  return stream;
}

const ticketFrames = (stream: OpenStream) => stream.frames.filter((frame) => frame.event === "ticket");

async function createTicket(gameRef: "galaxy" | "farm", key = tenant.apiKeys.main!, gameId = tenant.games[gameRef]!.id): Promise<string> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key,
    json: { gameId, message: "My ship is gone", language: "en", channels: ["email"], metadata: { player: { id: `p-${randomUUID()}`, email: "pat@example.com" } } },
  });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

const presence = (url: string, agent: Agent, ticketId: string, state: string, csrf = agent.csrfToken) =>
  (url === stack.url ? stack.request : replica.request)(`/agent-api/tickets/${ticketId}/presence`, {
    method: "POST",
    headers: { cookie: agent.cookie, origin: new URL(url).origin, "x-csrf-token": csrf },
    json: { state },
  });

beforeAll(async () => {
  stack = await startStack({ gateway: { AGENT_STREAM_HEARTBEAT_MS: 200 } });
  replica = await stack.startGateway({ AGENT_STREAM_HEARTBEAT_MS: 200 }, { nats: true });
  tenant = await stack.applyTenant({
    company: { name: "Live Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] },
      { ref: "farm", name: "Farm", slug: `farm-${suffix}`, languages: ["en"], environments: [{ ref: "farm-prod", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Agent", email: emails.ada, role: "agent", displayName: "Ada", games: ["galaxy"] },
      { ref: "bob", name: "Bob Agent", email: emails.bob, role: "agent", displayName: "Bob", games: ["galaxy"] },
      { ref: "fay", name: "Fay Farmer", email: emails.fay, role: "agent", displayName: "Fay", games: ["farm"] },
    ],
  });
  await stack.applyTenant({ company: { name: "Elsewhere" }, users: [{ ref: "olga", name: "Olga Other", email: emails.olga, role: "admin" }] });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  agents.ada = await signIn(stack.url, emails.ada);
  agents.bob = await signIn(replica.url, emails.bob);
  agents.fay = await signIn(stack.url, emails.fay);
  agents.olga = await signIn(stack.url, emails.olga);
}, 180_000);
afterAll(async () => {
  for (const stream of streams) stream.close();
  await replica?.stop();
  await stack?.stop();
});

describe("the agents' live stream", () => {
  it("sends a new ticket to the agents of its game only, and presence said on the other replica", async () => {
    const ada = await openStream(stack.url, agents.ada);
    const fay = await openStream(stack.url, agents.fay);
    const olga = await openStream(stack.url, agents.olga);
    expect(ada.status).toBe(200);
    await expect.poll(() => ada.frames[0]?.event).toBe("ready");
    await expect.poll(() => olga.frames[0]?.event).toBe("ready");

    const ticketId = await createTicket("galaxy");
    await expect.poll(() => ticketFrames(ada).find((frame) => frame.data?.change === "created")?.data, { timeout: 5000 }).toMatchObject({
      ticketId,
      gameId: tenant.games.galaxy!.id,
      change: "created",
      status: "new",
      assigneeId: null,
    });
    expect(ticketFrames(ada).map((frame) => frame.data?.change)).toContain("message_added");

    const said = await presence(replica.url, agents.bob, ticketId, "typing");
    expect(said.status, said.text).toBe(204);
    await expect.poll(() => ada.frames.find((frame) => frame.event === "presence")?.data, { timeout: 1000 }).toEqual({
      ticketId,
      gameId: tenant.games.galaxy!.id,
      agents: [{ userId: agents.bob.userId, displayName: "Bob", state: "typing" }],
    });

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ticketFrames(fay).filter((frame) => frame.data?.ticketId === ticketId)).toEqual([]);
    expect(fay.frames.filter((frame) => frame.event === "presence")).toEqual([]);
    expect(olga.frames.filter((frame) => frame.event !== "ready")).toEqual([]);
    for (const stream of [ada, fay, olga]) stream.close();
  });

  it("resumes on the other replica after the last id with the change it missed, once", async () => {
    const first = await openStream(stack.url, agents.ada);
    const ticketId = await createTicket("galaxy");
    await expect.poll(() => ticketFrames(first).filter((frame) => frame.data?.ticketId === ticketId).length, { timeout: 5000 }).toBe(2);
    const lastId = ticketFrames(first).at(-1)!.id!;
    first.close();

    const assigned = await stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key: tenant.apiKeys.main!, json: { actions: [{ type: "assignTicket", assigneeId: agents.ada.userId }] } });
    expect(assigned.status, assigned.text).toBe(200);
    const resumed = await openStream(replica.url, agents.ada, lastId);
    await expect.poll(() => ticketFrames(resumed).find((frame) => frame.data?.change === "assigned")?.data, { timeout: 5000 }).toMatchObject({ ticketId, assigneeId: agents.ada.userId });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = ticketFrames(resumed).map((frame) => Number(frame.id));
    expect(ids.every((id) => id > Number(lastId))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    resumed.close();
  });

  it("tells the player's stream, on the other replica, who of the agents is typing a reply, by display name", async () => {
    const token = tenant.games.galaxy!.environments["galaxy-prod"]!.token;
    const opened = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `typing-${suffix}` } } });
    expect(opened.status, opened.text).toBe(200);
    const code = (opened.body as { sessionCode: string }).sessionCode;
    const created = await stack.request("/player-api/tickets", { method: "POST", headers: { authorization: `Session ${code}` }, json: { message: "Anyone there?" } });
    expect(created.status, created.text).toBe(200);
    const ticketId = (created.body as { ticketId: string }).ticketId;
    const player = await readStream(`${replica.url}/player-api/tickets/${ticketId}/stream`, { authorization: `Session ${code}` });
    expect(player.status).toBe(200);
    const typing = () => player.frames.filter((frame) => frame.event === "agent-typing").map((frame) => frame.data);
    await expect.poll(() => player.frames.some((frame) => frame.event === "ticket-event")).toBe(true);

    // Viewing is not typing: the player hears nothing of it.
    expect((await presence(stack.url, agents.ada, ticketId, "viewing")).status).toBe(204);
    expect((await presence(stack.url, agents.ada, ticketId, "typing")).status).toBe(204);
    await expect.poll(typing).toEqual([{ agents: ["Ada"] }]);
    expect((await presence(replica.url, agents.bob, ticketId, "typing")).status).toBe(204);
    await expect.poll(typing).toEqual([{ agents: ["Ada"] }, { agents: ["Ada", "Bob"] }]);
    // One change at a time: two replicas' announcements reach the board in either order.
    expect((await presence(stack.url, agents.ada, ticketId, "left")).status).toBe(204);
    await expect.poll(typing).toEqual([{ agents: ["Ada"] }, { agents: ["Ada", "Bob"] }, { agents: ["Bob"] }]);
    expect((await presence(replica.url, agents.bob, ticketId, "viewing")).status).toBe(204);
    await expect.poll(typing).toEqual([{ agents: ["Ada"] }, { agents: ["Ada", "Bob"] }, { agents: ["Bob"] }, { agents: [] }]);
    // Never an agent's name or id beyond the display name.
    expect(JSON.stringify(player.frames)).not.toContain("Ada Agent");
    expect(JSON.stringify(player.frames)).not.toContain(tenant.users.ada!);
  });

  it("takes presence only with CSRF and for a ticket the agent may see", async () => {
    const farmTicket = await createTicket("farm");
    expect((await presence(stack.url, agents.ada, farmTicket, "viewing")).status).toBe(404);
    expect((await presence(stack.url, agents.ada, randomUUID(), "viewing")).status).toBe(404);
    expect((await presence(stack.url, agents.ada, farmTicket, "viewing", "not-the-token")).status).toBe(403);
    const bad = await presence(stack.url, agents.fay, farmTicket, "dancing");
    expect(bad.status).toBe(400);
    expect((await presence(stack.url, agents.fay, farmTicket, "viewing")).status).toBe(204);
  });

  it("ends when the user signs out everywhere", async () => {
    const bob = await signIn(stack.url, emails.bob);
    const stream = await openStream(stack.url, bob);
    await expect.poll(() => stream.frames[0]?.event).toBe("ready");
    const out = await stack.request("/agent-api/sign-out-everywhere", { method: "POST", headers: { cookie: bob.cookie, origin: new URL(stack.url).origin, "x-csrf-token": bob.csrfToken } });
    expect(out.status).toBe(204);
    await expect.poll(() => stream.ended(), { timeout: 3000 }).toBe(true);
    const again = await openStream(stack.url, bob);
    expect(again.status).toBe(401);
  });
});
