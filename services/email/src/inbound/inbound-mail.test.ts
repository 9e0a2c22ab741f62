import { describe, expect, it } from "vitest";
import { acceptsRecipient, automaticKind, bouncedMessageIds, bounceReason, fromThePlayer, replyText, replyTokenIn } from "./inbound-mail.ts";

const own = { replyAddress: "support@mail.studio.example", fromAddress: "noreply@studio.example" };
const TOKEN = "0123456789abcdef0123456789abcdef";
const headers = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([key, value]) => [key.toLowerCase(), value]));

describe("the recipients the platform takes mail for", () => {
  it("are the reply address, bare or plus-addressed, and the sender address; nothing else (never a relay)", () => {
    expect(acceptsRecipient(`support+${TOKEN}@mail.studio.example`, own)).toBe(true);
    expect(acceptsRecipient("Support@Mail.Studio.Example", own)).toBe(true);
    expect(acceptsRecipient("noreply@studio.example", own)).toBe(true);
    expect(acceptsRecipient("support@studio.example", own)).toBe(false);
    expect(acceptsRecipient("supporter@mail.studio.example", own)).toBe(false);
    expect(acceptsRecipient("anyone@elsewhere.example", own)).toBe(false);
    expect(acceptsRecipient("not an address", own)).toBe(false);
  });

  it("read a ticket's token only from a well-formed plus address of the reply address", () => {
    expect(replyTokenIn([`support+${TOKEN}@mail.studio.example`], own.replyAddress)).toBe(TOKEN);
    expect(replyTokenIn([`SUPPORT+${TOKEN.toUpperCase()}@MAIL.STUDIO.EXAMPLE`], own.replyAddress)).toBe(TOKEN);
    expect(replyTokenIn(["support+short@mail.studio.example"], own.replyAddress)).toBeUndefined();
    expect(replyTokenIn([`support+${TOKEN}@other.example`], own.replyAddress)).toBeUndefined();
    expect(replyTokenIn(["support@mail.studio.example"], own.replyAddress)).toBeUndefined();
  });
});

describe("automatic mail", () => {
  const person = { envelopeFrom: "pat@players.example" };

  it("recognises delivery status notifications and the null sender as bounces", () => {
    expect(automaticKind({ ...person, headers: headers({ "Content-Type": 'multipart/report; report-type="delivery-status"; boundary=x' }) })).toBe("bounce");
    expect(automaticKind({ envelopeFrom: "", headers: headers({}) })).toBe("bounce");
  });

  it("recognises auto-replies by RFC 3834, Precedence, the auto-responders' headers and mailing lists", () => {
    expect(automaticKind({ ...person, headers: headers({ "Auto-Submitted": "auto-replied" }) })).toBe("auto_reply");
    expect(automaticKind({ ...person, headers: headers({ "Auto-Submitted": "auto-generated" }) })).toBe("auto_reply");
    expect(automaticKind({ ...person, headers: headers({ Precedence: "bulk" }) })).toBe("auto_reply");
    expect(automaticKind({ ...person, headers: headers({ "X-Autoreply": "yes" }) })).toBe("auto_reply");
    expect(automaticKind({ ...person, headers: headers({ "List-Id": "<news.example>" }) })).toBe("auto_reply");
  });

  it("takes a person's mail as one, Auto-Submitted: no and Outlook's X-Auto-Response-Suppress included", () => {
    expect(automaticKind({ ...person, headers: headers({}) })).toBeUndefined();
    expect(automaticKind({ ...person, headers: headers({ "Auto-Submitted": "no" }) })).toBeUndefined();
    expect(automaticKind({ ...person, headers: headers({ "X-Auto-Response-Suppress": "All" }) })).toBeUndefined();
  });

  it("reads which mail a notification returns, and why", () => {
    const raw = "From: MAILER-DAEMON@x\r\nMessage-ID: <dsn@x>\r\n\r\n--B\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\r\n--B\r\nMessage-ID: <ours@studio.example>\r\n--B--";
    expect(bouncedMessageIds(raw)).toEqual(["ours@studio.example"]);
    expect(bounceReason(raw)).toBe("550 5.1.1 User unknown");
    expect(bounceReason("Status: 5.2.2")).toBe("status 5.2.2");
  });
});

describe("the player's answer", () => {
  it("is the player's only when the sender is the ticket's player", () => {
    expect(fromThePlayer({ from: "pat@players.example" }, "Pat@Players.Example")).toBe(true);
    expect(fromThePlayer({ from: "mallory@evil.example" }, "pat@players.example")).toBe(false);
    expect(fromThePlayer({ from: null }, "pat@players.example")).toBe(false);
    expect(fromThePlayer({ from: "pat@players.example" }, undefined)).toBe(false);
  });

  it("is the text above the quote, without the signature", () => {
    expect(replyText("Works now, thanks!\r\n\r\n-- \r\nPat\r\n\r\nOn Fri, Nov 27, 2026 at 10:00 AM Support <s@x> wrote:\r\n> Try again\r\n")).toBe("Works now, thanks!");
    expect(replyText("Geht wieder!\n\nAm 27.11.2026 um 10:00 schrieb Support <s@x>:\n> Versuch es nochmal\n")).toBe("Geht wieder!");
    expect(replyText("> only a quote\n")).toBe("");
  });
});
