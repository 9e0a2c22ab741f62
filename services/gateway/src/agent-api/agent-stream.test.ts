// An agent's live stream over the real live feed and presence board on a real NATS: the ready
// frame with the stream's position, changes of visible games only, presence, a resume after an
// id that sends the missed changes once and in order before the live ones, a reload when the
// changes are gone, and the end of the stream when the session ends.
import { randomUUID } from "node:crypto";
import type { PassThrough } from "node:stream";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connectBus, createEnvelope, ensureStream, streamNameFor, subjectFor, type NatsConnection } from "@support/bus";
import { newEvent } from "@support/events";
import { createLogger } from "@support/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAgentStream, type AgentStreamOptions } from "./agent-stream.ts";
import { AgentLiveFeed } from "./live-feed.ts";
import { PresenceBoard } from "./presence.ts";

const logger = createLogger({ service: "agent-stream-test", level: "silent" });

interface Frame {
  id?: string;
  event?: string;
  data?: unknown;
}

/** The frames a stream body has written so far (comments and retry lines left out). */
function framesOf(text: string): Frame[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const frame: Frame = {};
      for (const line of block.split("\n")) {
        const [field, ...rest] = line.split(": ");
        const value = rest.join(": ");
        if (field === "id") frame.id = value;
        if (field === "event") frame.event = value;
        if (field === "data") frame.data = JSON.parse(value);
      }
      return frame;
    });
}

function collect(body: PassThrough): { text: () => string; ended: () => boolean } {
  let text = "";
  let ended = false;
  body.on("data", (chunk: Buffer) => (text += chunk.toString()));
  body.on("end", () => (ended = true));
  return { text: () => text, ended: () => ended };
}

describe("an agent's live stream", () => {
  const prefix = `t_stream_${randomUUID().slice(0, 8)}_`;
  const stream = streamNameFor(prefix, "tickets");
  const company = randomUUID();
  const visibleGame = randomUUID();
  const hiddenGame = randomUUID();
  const actor = { type: "user" as const, id: randomUUID() };
  let nc: NatsConnection;
  let feed: AgentLiveFeed;
  let presence: PresenceBoard;
  const open: Array<{ close(): void }> = [];

  async function publish(gameId: string, companyId = company): Promise<number> {
    const event = newEvent("tickets.ticket.tags_changed", companyId, { ticketId: randomUUID(), runningId: 3, gameId, added: ["bug"], removed: [], tags: ["bug"], actor });
    return (await jetstream(nc).publish(subjectFor(prefix, event.type), JSON.stringify(createEnvelope(event)))).seq;
  }

  function start(overrides: Partial<AgentStreamOptions> = {}) {
    const stream = openAgentStream({
      feed,
      presence,
      companyId: company,
      canSee: (gameId) => gameId === visibleGame,
      heartbeatMs: 60_000,
      stillSignedIn: async () => true,
      endsAt: Date.now() + 3_600_000,
      onClose: () => undefined,
      logger,
      ...overrides,
    });
    open.push(stream);
    return { ...stream, ...collect(stream.body) };
  }

  beforeAll(async () => {
    nc = await connectBus(process.env.NATS_URL!, "agent-stream-test");
    await ensureStream(nc, { name: stream, subjects: [`${prefix}tickets.>`] });
    feed = new AgentLiveFeed({ nc, natsPrefix: prefix, logger });
    await feed.start();
    presence = new PresenceBoard({ nc, natsPrefix: prefix, logger });
    presence.start();
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await feed?.stop();
    await presence?.stop();
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
    await nc?.drain();
  });

  it("opens with its position, then sends the changes of the games the agent may see and who is on a ticket", async () => {
    const live = start();
    await expect.poll(() => framesOf(live.text()).length).toBe(1);
    expect(framesOf(live.text())[0]).toEqual({ id: String(feed.lastSeq), event: "ready", data: { lastEventId: String(feed.lastSeq) } });
    await publish(hiddenGame);
    await publish(visibleGame, randomUUID());
    const seq = await publish(visibleGame);
    await expect.poll(() => framesOf(live.text()).length).toBe(2);
    expect(framesOf(live.text())[1]).toMatchObject({ id: String(seq), event: "ticket", data: { seq, gameId: visibleGame, change: "tags_changed", tags: ["bug"] } });
    expect(JSON.stringify(framesOf(live.text())[1]!.data)).not.toContain(company);

    const ticketId = randomUUID();
    presence.announce({ companyId: company, gameId: visibleGame, ticketId, userId: randomUUID(), displayName: "Ada", state: "typing" });
    presence.announce({ companyId: company, gameId: hiddenGame, ticketId: randomUUID(), userId: randomUUID(), displayName: "Bob", state: "viewing" });
    await expect.poll(() => framesOf(live.text()).length).toBe(3);
    expect(framesOf(live.text())[2]).toEqual({ event: "presence", data: { ticketId, gameId: visibleGame, agents: [expect.objectContaining({ displayName: "Ada", state: "typing" })] } });
    live.close();
  });

  it("resumes after an id with every missed change once, in order, then the live ones", async () => {
    const from = feed.lastSeq;
    const missed = [await publish(visibleGame), await publish(hiddenGame), await publish(visibleGame)];
    await expect.poll(() => feed.lastSeq).toBe(missed[2]);
    const resumed = start({ lastEventId: from });
    const later = await publish(visibleGame);
    await expect.poll(() => framesOf(resumed.text()).filter((frame) => frame.event === "ticket").length).toBe(3);
    const ids = framesOf(resumed.text()).filter((frame) => frame.event === "ticket").map((frame) => Number(frame.id));
    expect(ids).toEqual([missed[0], missed[2], later]);
    resumed.close();
  });

  it("asks the client to reload when the changes after its id are gone", async () => {
    const seq = await publish(visibleGame);
    await expect.poll(() => feed.lastSeq).toBe(seq);
    const ahead = start({ lastEventId: seq + 1000 });
    // (The presence of the first test is still on the board: a new stream gets it too.)
    const frames = () => framesOf(ahead.text()).filter((frame) => frame.event !== "presence");
    await expect.poll(() => frames().map((frame) => frame.event)).toEqual(["ready", "reload"]);
    expect(frames()[1]!.id).toBe(String(seq));
    ahead.close();
  });

  it("ends when the session has ended", async () => {
    let signedIn = true;
    let closedCount = 0;
    const ending = start({ heartbeatMs: 50, stillSignedIn: async () => signedIn, onClose: () => closedCount++ });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(ending.ended()).toBe(false);
    signedIn = false;
    await expect.poll(() => ending.ended()).toBe(true);
    expect(closedCount).toBe(1);
  });
});
