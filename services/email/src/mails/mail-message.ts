// The mail of an agent's reply: subject, plain text and HTML in the ticket's language, the
// new message first, then the recent conversation quoted (never a private note: the caller
// passes only what the player may read). Player and agent text is escaped in the HTML part.
import { textsFor } from "./mail-texts.ts";

export interface QuotedMessage {
  fromPlayer: boolean;
  at: Date;
  message: string;
}

export interface ReplyMailInput {
  language: string;
  gameName: string;
  runningId: number;
  /** The ticket's subject line (the first line of the player's first message). */
  subjectLine: string;
  message: string;
  /** Earlier messages, newest first. */
  earlier: QuotedMessage[];
  /** The link that continues the conversation on the web support page, where the player's identity allows it. */
  continueUrl?: string | undefined;
}

export interface RenderedMail {
  fromName: string;
  subject: string;
  text: string;
  html: string;
}

const SUBJECT_MAX = 80;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((part) => `<p style="margin:0 0 12px">${escapeHtml(part).replace(/\n/g, "<br>")}</p>`)
    .join("");

/** The subject line as a mail subject: one line, at most 80 characters. */
export function subjectOf(firstMessage: string): string {
  const line = (firstMessage.split("\n").find((part) => part.trim() !== "") ?? "").trim().replace(/\s+/g, " ");
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

export function renderReplyMail(input: ReplyMailInput): RenderedMail {
  const { language, texts } = textsFor(input.language);
  const when = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
  const at = (date: Date) => `${when.format(date)} UTC`;
  const wrote = (quoted: QuotedMessage) => (quoted.fromPlayer ? texts.youWrote(at(quoted.at)) : texts.supportWrote(at(quoted.at)));

  const textParts = [input.message.trim(), "", `— ${texts.signature(input.gameName)}`, "", texts.replyHint(input.runningId)];
  if (input.continueUrl) textParts.push(`${texts.continueOnWeb} ${input.continueUrl}`);
  if (input.earlier.length > 0) {
    textParts.push("", `${texts.earlier}:`);
    for (const quoted of input.earlier) {
      textParts.push("", wrote(quoted), ...quoted.message.trim().split("\n").map((line) => `> ${line}`));
    }
  }

  const quotedHtml = input.earlier
    .map(
      (quoted) =>
        `<p style="margin:16px 0 4px;color:#555">${escapeHtml(wrote(quoted))}</p>` +
        `<blockquote style="margin:0;padding:0 0 0 12px;border-left:3px solid #ccc;color:#444">${paragraphs(quoted.message.trim())}</blockquote>`,
    )
    .join("");
  const html =
    `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><title>${escapeHtml(input.gameName)}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">` +
    `<div>${paragraphs(input.message.trim())}</div>` +
    `<p style="margin:16px 0 4px">— ${escapeHtml(texts.signature(input.gameName))}</p>` +
    `<p style="margin:0;color:#555;font-size:13px">${escapeHtml(texts.replyHint(input.runningId))}</p>` +
    (input.continueUrl
      ? `<p style="margin:4px 0 0;color:#555;font-size:13px">${escapeHtml(texts.continueOnWeb)} <a href="${escapeHtml(input.continueUrl)}" style="color:#1d4ed8">${escapeHtml(input.continueUrl.split("?")[0]!)}</a></p>`
      : "") +
    (input.earlier.length > 0 ? `<hr style="border:0;border-top:1px solid #ddd;margin:20px 0"><p style="margin:0;color:#555">${escapeHtml(texts.earlier)}</p>${quotedHtml}` : "") +
    `</body></html>`;

  return {
    fromName: texts.fromName(input.gameName),
    subject: texts.replySubject(input.subjectLine === "" ? input.gameName : input.subjectLine, input.runningId),
    text: textParts.join("\n"),
    html,
  };
}

export interface CsatMailInput {
  language: string;
  gameName: string;
  runningId: number;
  subjectLine: string;
  /** The rating page's address for each score, 1 to 5. */
  links: readonly [string, string, string, string, string];
}

/** The satisfaction survey of a resolved ticket: one link per score, each opening the rating page with it chosen. */
export function renderCsatMail(input: CsatMailInput): RenderedMail {
  const { language, texts } = textsFor(input.language);
  const choices = texts.scores.map((label, index) => ({ label, link: input.links[index]! }));
  const text = [
    texts.csatIntro(input.gameName),
    "",
    texts.csatQuestion,
    "",
    ...choices.map((choice) => `${choice.label}: ${choice.link}`),
    "",
    texts.csatOnce,
    "",
    `— ${texts.signature(input.gameName)}`,
  ].join("\n");
  const html =
    `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><title>${escapeHtml(input.gameName)}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a">` +
    `<p style="margin:0 0 12px">${escapeHtml(texts.csatIntro(input.gameName))}</p>` +
    `<p style="margin:0 0 12px">${escapeHtml(texts.csatQuestion)}</p>` +
    `<ul style="list-style:none;padding:0;margin:0 0 12px">` +
    choices.map((choice) => `<li style="margin:0 0 6px"><a href="${escapeHtml(choice.link)}" style="color:#1d4ed8">${escapeHtml(choice.label)}</a></li>`).join("") +
    `</ul>` +
    `<p style="margin:0 0 12px;color:#555;font-size:13px">${escapeHtml(texts.csatOnce)}</p>` +
    `<p style="margin:16px 0 4px">— ${escapeHtml(texts.signature(input.gameName))}</p>` +
    `</body></html>`;
  return {
    fromName: texts.fromName(input.gameName),
    subject: texts.csatSubject(input.subjectLine === "" ? input.gameName : input.subjectLine, input.runningId),
    text,
    html,
  };
}
