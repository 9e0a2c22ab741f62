// The Server-Sent Events parser of the conversation's live updates: chunks split anywhere,
// comments (the heartbeat), ids and multi-line data.
import { describe, expect, it } from "vitest";
import { createSseParser } from "../src/live-events.ts";

describe("createSseParser", () => {
  it("yields whole events whatever the chunking, skipping heartbeats", () => {
    const stream = ": ping\n\nid: 7\nevent: ticket-event\ndata: {\"a\":1}\n\nid: 8\r\nevent: ticket-event\r\ndata: line1\r\ndata: line2\r\n\r\n";
    for (const size of [1, 3, 7, stream.length]) {
      const seen: unknown[] = [];
      const parse = createSseParser((event) => seen.push(event));
      for (let index = 0; index < stream.length; index += size) parse(stream.slice(index, index + size));
      expect(seen).toEqual([
        { id: "7", event: "ticket-event", data: "{\"a\":1}" },
        { id: "8", event: "ticket-event", data: "line1\nline2" },
      ]);
    }
  });
});
