// One agent's live stream (GET /agent-api/stream, Server-Sent Events): the changes of the
// tickets and of the outbreak incidents of the games the agent may see, each with its id (the
// change's sequence in the tickets stream), and who is on which ticket. A stream opened with `Last-Event-ID` first sends
// every change after that id, then the live ones, none twice and none lost: live changes that
// arrive while the earlier ones are read wait behind them.
import { PassThrough } from "node:stream";
import type { Logger } from "@support/logging";
import type { AgentLiveFeed, FeedChange } from "./live-feed.ts";
import type { PresenceBoard, TicketPresence } from "./presence.ts";

export interface AgentStreamOptions {
  feed: Pick<AgentLiveFeed, "listen" | "since" | "lastSeq">;
  presence: Pick<PresenceBoard, "listen" | "snapshot">;
  companyId: string;
  /** Whether the agent may see a ticket of this game (an admin: every game of the company). */
  canSee: (gameId: string) => boolean;
  /** The id the client had (`Last-Event-ID`), when it reconnects. */
  lastEventId?: number | undefined;
  heartbeatMs: number;
  /** Asked at every heartbeat: false once the session has ended, which closes the stream. */
  stillSignedIn: () => Promise<boolean>;
  /** When the session ends at the latest (its absolute lifetime). */
  endsAt: number;
  onClose: () => void;
  logger: Logger;
}

/** The change as the stream sends it (a ticket's or an incident's): without the company, which the agent knows. */
function changeFrame(change: FeedChange): string {
  const { companyId: _companyId, ...visible } = change;
  return `id: ${change.seq}\nevent: ${"incidentId" in change ? "incident" : "ticket"}\ndata: ${JSON.stringify(visible)}\n\n`;
}

function presenceFrame(presence: TicketPresence): string {
  return `event: presence\ndata: ${JSON.stringify(presence)}\n\n`;
}

export function openAgentStream(options: AgentStreamOptions): { body: PassThrough; close(): void } {
  const body = new PassThrough();
  let closed = false;
  let lastSent = options.lastEventId ?? options.feed.lastSeq;
  /** Live changes that arrived while the earlier ones were being read. */
  let waiting: FeedChange[] | undefined = options.lastEventId === undefined ? undefined : [];

  const write = (frame: string) => {
    if (!closed) body.write(frame);
  };
  const sendChange = (change: FeedChange) => {
    if (change.seq <= lastSent) return;
    lastSent = change.seq;
    if (options.canSee(change.gameId)) write(changeFrame(change));
  };

  const unlistenChanges = options.feed.listen(options.companyId, (change) => {
    if (waiting) waiting.push(change);
    else sendChange(change);
  });
  const unlistenPresence = options.presence.listen(options.companyId, (presence) => {
    if (options.canSee(presence.gameId)) write(presenceFrame(presence));
  });

  const heartbeat = setInterval(() => {
    write(": ping\n\n");
    options.stillSignedIn().then(
      (yes) => {
        if (!yes) close();
      },
      () => undefined,
    );
  }, options.heartbeatMs);
  const expiry = setTimeout(() => close(), Math.max(0, Math.min(options.endsAt - Date.now(), 2 ** 31 - 1)));
  heartbeat.unref();
  expiry.unref();

  function close() {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(expiry);
    unlistenChanges();
    unlistenPresence();
    body.end();
    options.onClose();
  }
  body.on("close", close);

  // Reconnect after 3 s; the stream's position, so that even an idle stream can resume exactly.
  write(`retry: 3000\nid: ${lastSent}\nevent: ready\ndata: ${JSON.stringify({ lastEventId: String(lastSent) })}\n\n`);
  for (const presence of options.presence.snapshot(options.companyId)) if (options.canSee(presence.gameId)) write(presenceFrame(presence));

  if (options.lastEventId !== undefined) {
    const after = options.lastEventId;
    void options.feed
      .since(options.companyId, after)
      .then((since) => {
        if ("gone" in since) {
          // The changes after that id are no longer kept: the client reloads its lists and goes on from here.
          lastSent = options.feed.lastSeq;
          write(`id: ${lastSent}\nevent: reload\ndata: {}\n\n`);
        } else {
          for (const change of since.changes) sendChange(change);
        }
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: error }, "agent stream could not read the changes it missed: asking the client to reload");
        write(`event: reload\ndata: {}\n\n`);
      })
      .finally(() => {
        const queued = waiting ?? [];
        waiting = undefined;
        for (const change of queued) sendChange(change);
      });
  }
  return { body, close };
}
