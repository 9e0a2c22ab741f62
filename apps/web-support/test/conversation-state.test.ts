// The conversation's state from live events: the end of a ticket closes it with its
// resolution, a rating is kept, and other events change nothing.
import { describe, expect, it } from "vitest";
import { continuesGroup, initialsOf, stateAfter } from "../src/views/conversation.tsx";
import { playerStatusKey } from "../src/views/home.tsx";
import { refusalOf } from "../src/views/expired.tsx";
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
    expect(parseRoute("#/contact/refund%20policy")).toEqual({ name: "contact", article: "refund policy" });
    expect(parseRoute("#/unknown")).toEqual({ name: "home" });
  });
});

describe("playerStatusKey", () => {
  it("asks the player to answer while an open ticket's last message is an agent's, whatever its status", () => {
    for (const status of ["new", "unassigned", "assigned", "on_hold", "waiting"]) {
      expect(playerStatusKey({ status, resolutionType: null }, "agent")).toBe("status.waiting");
    }
    expect(playerStatusKey({ status: "unassigned", resolutionType: null }, "player")).toBe("status.unassigned");
    expect(playerStatusKey({ status: "new", resolutionType: null }, null)).toBe("status.new");
    expect(playerStatusKey({ status: "closed", resolutionType: "resolved" }, "agent")).toBe("status.resolved");
  });
});

describe("initialsOf", () => {
  it("takes the first character of the first and last words, whole", () => {
    expect(initialsOf("Mia Chen")).toBe("MC");
    expect(initialsOf("  ada  ")).toBe("A");
    expect(initialsOf("Jean Luc de la Tour")).toBe("JT");
    expect(initialsOf("Ōta Ren")).toBe("ŌR");
    expect(initialsOf("ليلى حسن")).toBe("لح");
    expect(initialsOf("👩🏽‍🚀 Sam")).toBe("👩🏽‍🚀S");
  });
});

describe("refusalOf", () => {
  it("reads the gateway's refusal from the address, a bad language as a bad link, anything unknown as a bad link", () => {
    expect(refusalOf("#/refused/token")).toBe("token");
    expect(refusalOf("#/refused/language")).toBe("link");
    expect(refusalOf("#/refused/whatever")).toBe("link");
    expect(refusalOf("#/")).toBeNull();
    expect(refusalOf("#/tickets/1")).toBeNull();
  });
});

describe("continuesGroup", () => {
  const message = (type: string, createdAt: string, extra: Record<string, unknown> = {}) => ({ id: createdAt, type, createdAt, message: "x", ...extra });
  it("groups messages of one writer within five minutes, nothing else", () => {
    const first = message("PLAYER_MESSAGE", "2026-11-23T10:00:00.000Z");
    expect(continuesGroup(undefined, first)).toBe(false);
    expect(continuesGroup(first, message("PLAYER_MESSAGE", "2026-11-23T10:04:59.000Z"))).toBe(true);
    expect(continuesGroup(first, message("PLAYER_MESSAGE", "2026-11-23T10:05:01.000Z"))).toBe(false);
    expect(continuesGroup(first, message("AGENT_MESSAGE", "2026-11-23T10:01:00.000Z"))).toBe(false);
    const ada = message("AGENT_MESSAGE", "2026-11-23T10:00:00.000Z", { agent: { displayName: "Ada" } });
    expect(continuesGroup(ada, message("AGENT_MESSAGE", "2026-11-23T10:01:00.000Z", { agent: { displayName: "Ada" } }))).toBe(true);
    expect(continuesGroup(ada, message("AGENT_MESSAGE", "2026-11-23T10:01:00.000Z", { agent: { displayName: "Bob" } }))).toBe(false);
    expect(continuesGroup(ada, message("AGENT_MESSAGE", "2026-11-23T10:01:00.000Z"))).toBe(false);
    expect(continuesGroup(first, message("PLAYER_MESSAGE", "2026-11-23T10:01:00.000Z", { mergedFrom: { runningId: 2, createdAt: at } }))).toBe(false);
    expect(continuesGroup(message("STATUS_CHANGED", "2026-11-23T10:00:00.000Z"), message("STATUS_CHANGED", "2026-11-23T10:00:01.000Z"))).toBe(false);
  });
});
