import { describe, expect, it } from "vitest";
import { afterAttempt, newMessageId, newReplyToken, replyAddressOf, sendsMail } from "./mail.ts";

const NOW = new Date("2026-11-27T12:00:00Z");

describe("a mail's delivery after an attempt", () => {
  it("is sent when the relay took it", () => {
    expect(afterAttempt({ attempts: 0 }, { sent: true, messageId: "m@x" }, [60], NOW)).toEqual({ status: "sent", attempts: 1, nextAttemptAt: null, lastError: null, sentAt: NOW });
  });

  it("is bounced, never retried, when the relay refused it for good", () => {
    expect(afterAttempt({ attempts: 0 }, { sent: false, permanent: true, reason: "550 5.1.1 no such user" }, [60, 300], NOW)).toEqual({
      status: "bounced",
      attempts: 1,
      nextAttemptAt: null,
      lastError: "550 5.1.1 no such user",
      sentAt: null,
    });
  });

  it("is deferred to the schedule's slot of its attempt, then failed once the schedule ran out", () => {
    const reason = "450 4.2.2 mailbox full";
    expect(afterAttempt({ attempts: 0 }, { sent: false, permanent: false, reason }, [60, 300], NOW)).toMatchObject({ status: "deferred", attempts: 1, nextAttemptAt: new Date(NOW.getTime() + 60_000), lastError: reason });
    expect(afterAttempt({ attempts: 1 }, { sent: false, permanent: false, reason }, [60, 300], NOW)).toMatchObject({ status: "deferred", attempts: 2, nextAttemptAt: new Date(NOW.getTime() + 300_000) });
    expect(afterAttempt({ attempts: 2 }, { sent: false, permanent: false, reason }, [60, 300], NOW)).toMatchObject({ status: "failed", attempts: 3, nextAttemptAt: null, lastError: reason });
  });
});

describe("threading and addresses", () => {
  it("gives each ticket an unguessable, lower-case reply token (128 bits)", () => {
    const tokens = new Set(Array.from({ length: 100 }, newReplyToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{32}$/);
  });

  it("plus-addresses the reply address, or has none without one", () => {
    expect(replyAddressOf("support@studio.example", "abc")).toBe("support+abc@studio.example");
    expect(replyAddressOf("", "abc")).toBeNull();
  });

  it("makes Message-IDs in the sender's domain", () => {
    expect(newMessageId("support@mail.studio.example")).toMatch(/^[0-9a-f-]{36}@mail\.studio\.example$/);
    expect(newMessageId("not an address")).toMatch(/@localhost$/);
  });

  it("mails only email tickets with the player's address", () => {
    expect(sendsMail({ channels: ["email"], email: "pat@players.example" })).toBe(true);
    expect(sendsMail({ channels: ["chat"], email: "pat@players.example" })).toBe(false);
    expect(sendsMail({ channels: ["email"], email: undefined })).toBe(false);
    expect(sendsMail({ channels: ["email", "chat"], email: "" })).toBe(false);
  });
});
