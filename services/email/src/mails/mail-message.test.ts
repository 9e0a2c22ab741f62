import { describe, expect, it } from "vitest";
import { renderReplyMail, subjectOf } from "./mail-message.ts";
import { catalogs, textsFor } from "./mail-texts.ts";

const base = { gameName: "Galaxy Raiders", runningId: 42, subjectLine: "Ship gone", message: "We found your ship.", earlier: [] };

describe("the mail of an agent's reply", () => {
  it("is in the ticket's language, falling back to its base language, then English", () => {
    expect(textsFor("de").language).toBe("de");
    expect(textsFor("pt-BR").language).toBe("pt");
    expect(textsFor("es-MX").language).toBe("es");
    expect(textsFor("ko").language).toBe("en");
    expect(renderReplyMail({ ...base, language: "de" }).subject).toBe("AW: Ship gone [#42]");
    expect(renderReplyMail({ ...base, language: "fr" }).fromName).toBe("Support Galaxy Raiders");
    expect(renderReplyMail({ ...base, language: "ko" }).subject).toBe("Re: Ship gone [#42]");
  });

  it("has every text in every catalog", () => {
    const keys = Object.keys(catalogs.en!).sort();
    for (const [language, texts] of Object.entries(catalogs)) expect(Object.keys(texts).sort(), language).toEqual(keys);
  });

  it("quotes the earlier conversation under the message, newest first, with who wrote it", () => {
    const mail = renderReplyMail({
      ...base,
      language: "en",
      earlier: [
        { fromPlayer: false, at: new Date("2026-11-27T10:00:00Z"), message: "Which platform?" },
        { fromPlayer: true, at: new Date("2026-11-27T09:00:00Z"), message: "My ship is gone\nsince yesterday" },
      ],
    });
    const text = mail.text;
    expect(text.startsWith("We found your ship.\n")).toBe(true);
    expect(text).toContain("Support wrote on Nov 27, 2026, 10:00 AM UTC:\n> Which platform?");
    expect(text).toContain("You wrote on Nov 27, 2026, 9:00 AM UTC:\n> My ship is gone\n> since yesterday");
    expect(text.indexOf("> Which platform?")).toBeLessThan(text.indexOf("> My ship is gone"));
    expect(text).toContain("Ticket #42.");
  });

  it("escapes player and agent text in the HTML part", () => {
    const mail = renderReplyMail({
      ...base,
      language: "en",
      gameName: "<Raiders>",
      message: "<script>alert(1)</script> & more",
      earlier: [{ fromPlayer: true, at: new Date(), message: '<img src=x onerror="steal()">' }],
    });
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).not.toContain("<img");
    expect(mail.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more");
    expect(mail.html).toContain("&lt;Raiders&gt;");
    expect(mail.html).toContain('lang="en"');
  });

  it("takes the subject from the first non-empty line, at most 80 characters", () => {
    expect(subjectOf("\n\n  My   ship\tis gone  \nmore")).toBe("My ship is gone");
    expect(subjectOf("x".repeat(100))).toBe(`${"x".repeat(79)}…`);
    expect(renderReplyMail({ ...base, language: "en", subjectLine: "" }).subject).toBe("Re: Galaxy Raiders [#42]");
  });
});
