// The conversation's state from live events: the end of a ticket closes it with its
// resolution, a rating is kept, and other events change nothing.
import { describe, expect, it } from "vitest";
import { stateAfter } from "../src/views/conversation.tsx";
import { parseRoute } from "../src/app.tsx";

const open = { status: "waiting", resolutionType: null, csatScore: null };
const at = "2026-11-23T10:00:00.000Z";

describe("stateAfter", () => {
  it("closes on END with the resolution, then keeps a rating", () => {
    const closed = stateAfter(open, [{ id: "1", type: "END", createdAt: at, resolutionType: "resolved" }]);
    expect(closed).toEqual({ status: "closed", resolutionType: "resolved", csatScore: null });
    expect(stateAfter(closed, [{ id: "2", type: "CSAT", createdAt: at, score: 4, review: null }])).toEqual({ status: "closed", resolutionType: "resolved", csatScore: 4 });
  });

  it("ignores messages and event types it does not know", () => {
    expect(stateAfter(open, [{ id: "1", type: "AGENT_MESSAGE", createdAt: at, message: "hi" }, { id: "2", type: "SOMETHING_NEW", createdAt: at }])).toEqual(open);
  });
});

describe("parseRoute", () => {
  it("reads the page from the hash", () => {
    expect(parseRoute("")).toEqual({ name: "home" });
    expect(parseRoute("#/resources/getting%20started")).toEqual({ name: "resource", key: "getting started" });
    expect(parseRoute("#/tickets/abc")).toEqual({ name: "ticket", id: "abc" });
    expect(parseRoute("#/contact")).toEqual({ name: "contact" });
    expect(parseRoute("#/unknown")).toEqual({ name: "home" });
  });
});
