// The email channel over the real stack, a real SMTP receiver (the players' inboxes) and real
// mail sent to the email service's SMTP listener (the players' answers): an agent's reply on an
// email ticket reaches the player as one mail in the ticket's language, DKIM-signed, threaded,
// with the conversation quoted and never a private note; a second reply answers the first; a
// relay that refuses the address for good or for now shows as bounced or deferred in the ticket
// view. The player's answer, quote and signature removed, joins the ticket; an auto-reply and a
// bounce add nothing (the bounce marks the returned mail); a forged answer is held; a flood is cut
// at the hourly limit; an answer to a closed ticket opens its follow-up; the player's erasure
// takes the ticket's mails with it.
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { freePort, startWebhookReceiver } from "@support/testkit";
import nodemailer from "nodemailer";
import { createDb, sql } from "@support/db";
import { EmailService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { dkimVerify } from "mailauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const DOMAIN = "mail.studio.example";
const SELECTOR = "s2026";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const dkimRecord = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;

let stack: Stack;
let tenant: TenantResult;
let ada: SignedInAgent;

const player = (name: string) => `${name}-${suffix}@players.example`;
const origin = () => new URL(stack.url).origin;
const act = (ticketId: string, actions: unknown[]) =>
  stack.request(`/agent-api/tickets/${ticketId}/actions`, { method: "POST", headers: { cookie: ada.cookie, origin: origin(), "x-csrf-token": ada.csrfToken }, json: { actions } });

/** A 1x1 PNG: what a phone's screenshot is, as far as the platform cares. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNg+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

interface ViewEntry {
  event: { type: string; id: string; message?: string; attachments?: { id: string }[] };
  emailDelivery?: { status: string; attempts: number; sentAt: string | null; nextAttemptAt: string | null; lastError: string | null };
}
const conversationOf = async (ticketId: string) => {
  const view = await stack.request(`/agent-api/tickets/${ticketId}`, { headers: { cookie: ada.cookie } });
  expect(view.status, view.text).toBe(200);
  return (view.body as { conversation: ViewEntry[] }).conversation;
};

async function createTicket(email: string, message: string, language = "de"): Promise<{ id: string; runningId: number }> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key: tenant.apiKeys.main!,
    json: { gameId: tenant.games.galaxy!.id, message, language, channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 8)}`, name: "Pat", email } } },
  });
  expect(response.status, response.text).toBe(200);
  const ticketId = (response.body as { ticketId: string }).ticketId;
  const listed = await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! });
  return { id: ticketId, runningId: (listed.body as { tickets: { runningId: number }[] }).tickets[0]!.runningId };
}

/** Polls the ticket view until the agent message carrying `text` has a delivery in one of `statuses`. */
async function deliveryOf(ticketId: string, text: string, statuses: string[]): Promise<NonNullable<ViewEntry["emailDelivery"]>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const entry = (await conversationOf(ticketId)).find((item) => item.event.type === "AGENT_MESSAGE" && item.event.message === text);
    if (entry?.emailDelivery && statuses.includes(entry.emailDelivery.status)) return entry.emailDelivery;
    if (Date.now() > deadline) throw new Error(`no delivery in ${statuses.join("/")} for "${text}": ${JSON.stringify(entry)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const header = (raw: string, name: string) => new RegExp(`^${name}: *(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(raw)?.[1]?.replace(/\r?\n[ \t]+/g, " ").trim();

let inboundPort: number;
/** Sends a mail to the email service's SMTP listener, as the player's mail server would. */
interface MailFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

async function mailIn(mail: { from: string; to: string; subject: string; text: string; inReplyTo?: string; messageId?: string; headers?: Record<string, string>; envelopeFrom?: string; raw?: string; attachments?: MailFile[] }): Promise<void> {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: inboundPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail(
      mail.raw !== undefined
        ? { envelope: { from: mail.envelopeFrom ?? "", to: mail.to }, raw: mail.raw }
        : { from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, headers: mail.headers, attachments: mail.attachments ?? [], ...(mail.messageId ? { messageId: mail.messageId } : {}), ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo, references: [mail.inReplyTo] } : {}), ...(mail.envelopeFrom !== undefined ? { envelope: { from: mail.envelopeFrom, to: mail.to } } : {}) },
    );
  } finally {
    transport.close();
  }
}

beforeAll(async () => {
  inboundPort = await freePort();
  stack = await startStack({
    env: {
      MAIL_FROM: `Player support <support@${DOMAIN}>`,
      EMAIL_REPLY_ADDRESS: `support@${DOMAIN}`,
      EMAIL_DKIM_DOMAIN: DOMAIN,
      EMAIL_DKIM_SELECTOR: SELECTOR,
      EMAIL_DKIM_PRIVATE_KEY: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      EMAIL_POLL_INTERVAL_MS: "100",
      // The first retry soon, so that a deferred mail shows its next attempt within the test.
      EMAIL_RETRY_SCHEDULE: "60,300",
      EMAIL_SMTP_PORT: String(inboundPort),
      // Low, so that a flood reaches it within the test.
      EMAIL_INBOUND_PER_SENDER_PER_HOUR: "4",
    },
  });
  tenant = await stack.applyTenant({
    company: { name: "Mail Studio", primaryLanguage: "en", allowImmediateDeletion: true },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${suffix}`, languages: ["en", "de"], environments: [{ ref: "prod", name: "production" }] }],
    users: [{ ref: "ada", name: "Ada Agent", email: `ada-${suffix}@studio.example`, role: "agent", displayName: "Ada", games: ["galaxy"] }],
  });
  await stack.admin(["users", "set-password", "--email", `ada-${suffix}@studio.example`], `${PASSWORD}\n`);
  ada = await signInAgent(stack, `ada-${suffix}@studio.example`, PASSWORD);
}, 180_000);
afterAll(() => stack?.stop());

describe("the email channel: agents' replies reach the player's inbox", () => {
  let ticket: { id: string; runningId: number };
  let firstMessageId: string;
  let replyAddress: string;
  let secondMessageId: string;

  it("sends an agent's reply as one DKIM-signed mail in the ticket's language, with the conversation quoted and never the note", async () => {
    const address = player("pat");
    ticket = await createTicket(address, "Mein Schiff ist weg\n\nIch habe es gestern im Shop gekauft.");
    const reply = "Hallo Pat, wir haben dein Schiff gefunden und es wieder in dein Inventar gelegt.";
    const acted = await act(ticket.id, [
      { type: "addPrivateNote", message: "internal: refund if it happens again" },
      { type: "sendMessage", message: reply },
    ]);
    expect(acted.status, acted.text).toBe(200);

    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000 });
    expect(mail.subject).toBe(`AW: Mein Schiff ist weg [#${ticket.runningId}]`);
    expect(header(mail.raw, "From")).toBe(`Galaxy Raiders Support <support@${DOMAIN}>`);
    expect(mail.text).toContain(reply);
    expect(mail.text).toContain("> Mein Schiff ist weg");
    expect(mail.text).toContain("Dein Galaxy Raiders-Supportteam");
    expect(mail.html).toContain("wir haben dein Schiff gefunden");
    expect(mail.raw).not.toContain("refund if it happens again");
    // The game takes unverified players: the mail links to the web support page, where the
    // player proves the address with a code before seeing the conversation.
    const link = /Du kannst dieses Gespräch auch auf unserer Support-Seite fortsetzen: (\S+)/.exec(mail.text)?.[1];
    expect(link).toMatch(/\/support\/sessions\/redirect\?token=[0-9a-f-]{36}&player\.email=/);
    const session = await fetch(`${stack.url}${new URL(link!).pathname}${new URL(link!).search}`, { redirect: "manual" });
    expect(session.status).toBe(307);
    expect(session.headers.get("location")).toContain("sid=");
    // Plus-addressed per ticket with an unguessable token; a person wrote it, so not Auto-Submitted.
    replyAddress = header(mail.raw, "Reply-To")!;
    expect(replyAddress).toMatch(new RegExp(`^support\\+[0-9a-f]{32}@${DOMAIN.replaceAll(".", "\\.")}$`));
    expect(header(mail.raw, "Auto-Submitted")).toBeUndefined();
    expect(header(mail.raw, "X-Auto-Response-Suppress")).toBe("All");
    firstMessageId = header(mail.raw, "Message-ID")!;
    expect(firstMessageId).toMatch(new RegExp(`^<[0-9a-f-]{36}@${DOMAIN.replaceAll(".", "\\.")}>$`));
    expect(header(mail.raw, "In-Reply-To")).toBeUndefined();

    const verified = await dkimVerify(Buffer.from(mail.raw), {
      resolver: async (name: string, type: string) => {
        if (type === "TXT" && name === `${SELECTOR}._domainkey.${DOMAIN}`) return [[dkimRecord]];
        throw Object.assign(new Error(`no ${type} record for ${name}`), { code: "ENOTFOUND" });
      },
    });
    expect(verified.results.map((result) => [result.signingDomain, (result as { status?: { result?: string } }).status?.result])).toEqual([[DOMAIN, "pass"]]);

    const delivery = await deliveryOf(ticket.id, reply, ["sent"]);
    expect(delivery).toMatchObject({ status: "sent", attempts: 1, lastError: null, nextAttemptAt: null });
    expect(Date.parse(delivery.sentAt!)).toBeGreaterThan(0);
    const note = (await conversationOf(ticket.id)).find((entry) => entry.event.type === "PRIVATE_NOTE");
    expect(note?.emailDelivery).toBeUndefined();
    // The attempt is counted on the email service's metrics; nothing waits any more.
    const metrics = await (await fetch(stack.metricsUrls().email)).text();
    expect(Number(/^support_email_attempts_total\{kind="agent_reply",status="sent"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(/^support_email_mails_waiting 0$/m.test(metrics)).toBe(true);
  });

  it("threads a second reply under the first (In-Reply-To, References) and sends nothing for a note alone", async () => {
    const address = player("pat");
    const before = stack.smtp.mails.length;
    expect((await act(ticket.id, [{ type: "addPrivateNote", message: "only a note" }])).status).toBe(200);
    const second = "Noch eine Frage: Auf welcher Plattform spielst du?";
    expect((await act(ticket.id, [{ type: "sendMessage", message: second }])).status).toBe(200);
    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000, after: before });
    expect(mail.text).toContain(second);
    expect(mail.raw).not.toContain("only a note");
    expect(header(mail.raw, "In-Reply-To")).toBe(firstMessageId);
    expect(header(mail.raw, "References")).toBe(firstMessageId);
    secondMessageId = header(mail.raw, "Message-ID")!;
    // The earlier reply is quoted, newest first, above the player's first message.
    expect(mail.text.indexOf("> Hallo Pat")).toBeLessThan(mail.text.indexOf("> Mein Schiff ist weg"));
    await deliveryOf(ticket.id, second, ["sent"]);
    expect(stack.smtp.mails.filter((item, index) => index >= before && item.to.includes(address))).toHaveLength(1);
  });

  it("writes in English where the ticket's language has no catalog of its own", async () => {
    const address = player("kim");
    const korean = await createTicket(address, "My guild chat is gone", "ko");
    expect((await act(korean.id, [{ type: "sendMessage", message: "We restored it." }])).status).toBe(200);
    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000 });
    expect(mail.subject).toBe(`Re: My guild chat is gone [#${korean.runningId}]`);
    expect(mail.text).toContain("The Galaxy Raiders support team");
  });

  it("shows a mail the relay refuses for good as bounced, and one it refuses for now as deferred with its next attempt", async () => {
    const gone = player("gone");
    const full = player("full");
    stack.smtp.refusedRecipients.set(gone, 550);
    stack.smtp.refusedRecipients.set(full, 450);
    const goneTicket = await createTicket(gone, "Ticket of a deleted mailbox");
    const fullTicket = await createTicket(full, "Ticket of a full mailbox");
    expect((await act(goneTicket.id, [{ type: "sendMessage", message: "Reply to nobody" }])).status).toBe(200);
    expect((await act(fullTicket.id, [{ type: "sendMessage", message: "Reply for later" }])).status).toBe(200);

    const bounced = await deliveryOf(goneTicket.id, "Reply to nobody", ["bounced"]);
    expect(bounced).toMatchObject({ status: "bounced", attempts: 1, sentAt: null, nextAttemptAt: null });
    expect(bounced.lastError).toContain("550");
    const deferred = await deliveryOf(fullTicket.id, "Reply for later", ["deferred"]);
    expect(deferred).toMatchObject({ status: "deferred", attempts: 1, sentAt: null });
    expect(deferred.lastError).toContain("450");
    const retryIn = Date.parse(deferred.nextAttemptAt!) - Date.now();
    expect(retryIn).toBeGreaterThan(30_000);
    expect(retryIn).toBeLessThanOrEqual(60_000);
    expect(stack.smtp.mails.some((mail) => mail.to.includes(gone) || mail.to.includes(full))).toBe(false);
  });

  const playerMessages = async (ticketId: string) =>
    (await conversationOf(ticketId)).filter((entry) => entry.event.type === "PLAYER_MESSAGE").map((entry) => entry.event.message!);

  /** A ticket with one agent reply mailed: its reply address and the mail's Message-ID. */
  async function mailedTicket(name: string): Promise<{ id: string; address: string; replyAddress: string; messageId: string }> {
    const address = player(name);
    const created = await createTicket(address, `Question of ${name}`, "en");
    const before = stack.smtp.mails.length;
    expect((await act(created.id, [{ type: "sendMessage", message: `Answer for ${name}` }])).status).toBe(200);
    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000, after: before });
    return { id: created.id, address, replyAddress: header(mail.raw, "Reply-To")!, messageId: header(mail.raw, "Message-ID")! };
  }

  it("takes the player's answer by mail into the ticket, without the quoted conversation or the signature, and threads the next reply under it", async () => {
    // The studio's webhook sees the answer like any message, with its channel.
    const receiver = await startWebhookReceiver();
    const subscribed = await stack.request("/webhooks", { method: "POST", key: tenant.apiKeys.main!, json: { url: receiver.url, eventTypes: ["ticket.message_added"] } });
    expect(subscribed.status, subscribed.text).toBe(200);
    const address = player("pat");
    const text = "Danke, jetzt ist es wieder da!\n\nIch spiele auf Android.\n\n-- \nPat\nVon meinem Telefon gesendet\n\nAm 27.11.2026 um 10:00 schrieb Galaxy Raiders Support <support@mail.studio.example>:\n> Noch eine Frage: Auf welcher Plattform spielst du?\n> > Mein Schiff ist weg\n";
    const screenshot = { filename: "schiff.png", contentType: "image/png", content: PNG };
    await mailIn({ from: `Pat <${address}>`, to: replyAddress, subject: "Re: Mein Schiff ist weg", text, inReplyTo: secondMessageId, messageId: `<answer-${suffix}@players.example>`, attachments: [screenshot] });
    expect(await playerMessages(ticket.id)).toEqual(["Mein Schiff ist weg\n\nIch habe es gestern im Shop gekauft.", "Danke, jetzt ist es wieder da!\n\nIch spiele auf Android."]);
    // Its file is the ticket's, named and typed as sent, and downloads like any.
    const view = (await stack.request(`/agent-api/tickets/${ticket.id}`, { headers: { cookie: ada.cookie } })).body as { conversation: ViewEntry[]; attachments: { id: string; fileName: string; fileType: string; fileSize: number }[] };
    const answer = view.conversation.filter((entry) => entry.event.type === "PLAYER_MESSAGE")[1]!;
    expect(answer.event.attachments).toHaveLength(1);
    expect(view.attachments).toContainEqual({ id: answer.event.attachments![0]!.id, fileName: "schiff.png", fileType: "image/png", fileSize: PNG.length });
    const download = await stack.request(`/agent-api/tickets/${ticket.id}/attachments/${answer.event.attachments![0]!.id}`, { headers: { cookie: ada.cookie }, redirect: "manual" });
    expect(download.status).toBe(307);
    await expect.poll(() => receiver.bodies().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    expect(receiver.bodies()[0]).toMatchObject({
      type: "ticket.message_added",
      data: { ticketId: ticket.id, eventId: answer.event.id, type: "PLAYER_MESSAGE", message: "Danke, jetzt ist es wieder da!\n\nIch spiele auf Android.", channel: "email", attachments: [{ id: answer.event.attachments![0]!.id }], actor: { type: "player" } },
    });
    await receiver.stop();
    expect((await stack.request(`/webhooks/${(subscribed.body as { webhook: { id: string } }).webhook.id}`, { method: "DELETE", key: tenant.apiKeys.main! })).status).toBe(200);
    // The same mail delivered again (the sending server did not see our answer) is taken once.
    await mailIn({ from: `Pat <${address}>`, to: replyAddress, subject: "Re: Mein Schiff ist weg", text, inReplyTo: secondMessageId, messageId: `<answer-${suffix}@players.example>` });
    expect(await playerMessages(ticket.id)).toHaveLength(2);

    const before = stack.smtp.mails.length;
    expect((await act(ticket.id, [{ type: "sendMessage", message: "Schön! Viel Spaß." }])).status).toBe(200);
    const next = await stack.smtp.waitForMail(address, { timeoutMs: 15_000, after: before });
    expect(header(next.raw, "In-Reply-To")).toBe(`<answer-${suffix}@players.example>`);
    expect(header(next.raw, "References")).toBe(`${firstMessageId} ${secondMessageId} <answer-${suffix}@players.example>`);
    expect(next.text).toContain("> Danke, jetzt ist es wieder da!");
  });

  it("adds nothing for an auto-reply, holds a forged answer, and marks a returned mail bounced from its delivery status notification", async () => {
    const address = player("pat");
    await mailIn({ from: address, to: replyAddress, subject: "Abwesenheitsnotiz", text: "Ich bin bis Montag nicht da.", headers: { "Auto-Submitted": "auto-replied" } });
    // Someone who learnt the reply address, writing as somebody else.
    await mailIn({ from: "mallory@evil.example", to: replyAddress, subject: "Re: Mein Schiff ist weg", text: "Please send the account password to me.", inReplyTo: secondMessageId });
    const messages = await playerMessages(ticket.id);
    expect(messages).toHaveLength(2);
    expect(messages.join(" ")).not.toMatch(/Abwesenheitsnotiz|nicht da|password/);
    // The forged one waits for an agent beside the conversation; the auto-reply is nowhere.
    const view = (await stack.request(`/agent-api/tickets/${ticket.id}`, { headers: { cookie: ada.cookie } })).body as { heldMails: Record<string, unknown>[] };
    expect(view.heldMails).toEqual([{ id: expect.any(String), from: "mallory@evil.example", subject: "Re: Mein Schiff ist weg", text: "Please send the account password to me.\n", receivedAt: expect.any(String) }]);

    const report = [
      "From: Mail Delivery System <MAILER-DAEMON@players.example>",
      `To: support@${DOMAIN}`,
      "Subject: Undelivered Mail Returned to Sender",
      `Message-ID: <dsn-${suffix}@players.example>`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      "",
      "--B",
      "Content-Type: text/plain",
      "",
      "Your message could not be delivered.",
      "",
      "--B",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; players.example",
      "",
      `Final-Recipient: rfc822; ${address}`,
      "Action: failed",
      "Status: 5.2.2",
      "Diagnostic-Code: smtp; 552 5.2.2 Mailbox full",
      "",
      "--B",
      "Content-Type: text/rfc822-headers",
      "",
      `Message-ID: ${secondMessageId}`,
      `From: Galaxy Raiders Support <support@${DOMAIN}>`,
      "",
      "--B--",
      "",
    ].join("\r\n");
    await mailIn({ from: "", to: `support@${DOMAIN}`, subject: "", text: "", envelopeFrom: "mailer-daemon@players.example", raw: report });
    const second = (await conversationOf(ticket.id)).find((entry) => entry.event.message === "Noch eine Frage: Auf welcher Plattform spielst du?");
    expect(second?.emailDelivery).toMatchObject({ status: "bounced", lastError: "552 5.2.2 Mailbox full" });
    expect(await playerMessages(ticket.id)).toHaveLength(2);
  });

  it("refuses mail for addresses that are not the platform's (never a relay)", async () => {
    await expect(mailIn({ from: player("pat"), to: "someone@elsewhere.example", subject: "relay?", text: "relay me" })).rejects.toThrow(/550/);
  });

  it("stops a flood of mail from one address at the hourly limit", async () => {
    const flooded = await mailedTicket("flood");
    for (let i = 1; i <= 6; i++) await mailIn({ from: flooded.address, to: flooded.replyAddress, subject: "Re: answer", text: `Mail number ${i}`, inReplyTo: flooded.messageId });
    expect(await playerMessages(flooded.id)).toEqual(["Question of flood", "Mail number 1", "Mail number 2", "Mail number 3", "Mail number 4"]);
  });

  it("opens a follow-up for an answer to a closed ticket, and puts a second answer there too", async () => {
    const closed = await mailedTicket("closed");
    expect((await act(closed.id, [{ type: "resolveTicket" }])).status).toBe(200);
    await mailIn({
      from: closed.address, to: closed.replyAddress, subject: "Re: answer", text: "It broke again today.", inReplyTo: closed.messageId,
      attachments: [{ filename: "crash.png", contentType: "image/png", content: PNG }, { filename: "report.docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", content: Buffer.from("PK not really a document") }],
    });
    const listed = async (ticketId: string) =>
      ((await stack.request(`/tickets?ticketId=${ticketId}`, { key: tenant.apiKeys.main! })).body as { tickets: Record<string, unknown>[] }).tickets[0]!;
    const old = await listed(closed.id);
    expect(old).toMatchObject({ status: "closed", resolutionType: "resolved", followUpTicketId: expect.any(String) });
    const followUpId = old.followUpTicketId as string;
    expect(await listed(followUpId)).toMatchObject({ status: "new", supportSource: "EMAIL", channels: ["email"], email: closed.address, reopenedFromTicketId: closed.id, language: "en" });
    // The image is kept; a type the platform does not take is named under the message.
    expect(await playerMessages(followUpId)).toEqual(["It broke again today.\n\n[Not kept: report.docx, of a type or size the platform does not accept.]"]);
    const first = (await conversationOf(followUpId)).find((entry) => entry.event.type === "PLAYER_MESSAGE")!;
    expect(first.event.attachments).toHaveLength(1);
    await mailIn({ from: closed.address, to: closed.replyAddress, subject: "Re: answer", text: "And once more.", inReplyTo: closed.messageId });
    expect((await playerMessages(followUpId))[1]).toBe("And once more.");
    expect(await playerMessages(closed.id)).toEqual(["Question of closed"]);
  });

  it("opens a ticket for a new mail to the game's support address, and adds a similar one to it", async () => {
    const address = player("newcomer");
    const support = `support+g-${tenant.games.galaxy!.id.replaceAll("-", "")}@${DOMAIN}`;
    await mailIn({ from: `Nova Newcomer <${address}>`, to: support, subject: "Cannot log in", text: "Since the update my login fails with error 42.", attachments: [{ filename: "error.png", contentType: "image/png", content: PNG }] });
    const listed = (await stack.request(`/tickets?email=${encodeURIComponent(address)}`, { key: tenant.apiKeys.main! })).body as { tickets: Record<string, unknown>[] };
    expect(listed.tickets).toHaveLength(1);
    const created = listed.tickets[0]!;
    expect(created).toMatchObject({ status: "new", supportSource: "EMAIL", channels: ["email"], email: address, playerName: "Nova Newcomer", language: "en", gameId: tenant.games.galaxy!.id });
    const first = (await conversationOf(created.id as string)).find((entry) => entry.event.type === "PLAYER_MESSAGE")!;
    expect(first.event.message).toBe("Cannot log in\n\nSince the update my login fails with error 42.");
    expect(first.event.attachments).toHaveLength(1);
    // The same again (the player did not see an answer yet): it joins the open ticket.
    await mailIn({ from: address, to: support, subject: "Cannot log in", text: "Since the update my login fails with error 42." });
    expect(((await stack.request(`/tickets?email=${encodeURIComponent(address)}`, { key: tenant.apiKeys.main! })).body as { tickets: unknown[] }).tickets).toHaveLength(1);
    expect(await playerMessages(created.id as string)).toHaveLength(2);
    // A game the platform does not know takes nothing.
    await mailIn({ from: address, to: `support+g-${"0".repeat(32)}@${DOMAIN}`, subject: "Hello", text: "Anyone?" });
    expect(((await stack.request(`/tickets?email=${encodeURIComponent(address)}`, { key: tenant.apiKeys.main! })).body as { tickets: unknown[] }).tickets).toHaveLength(1);
  });

  it("mails the satisfaction survey when an email ticket is resolved; its link's page takes one rating, which the ticket keeps", async () => {
    const rated = await mailedTicket("rated");
    const before = stack.smtp.mails.length;
    expect((await act(rated.id, [{ type: "resolveTicket" }])).status).toBe(200);
    const survey = await stack.smtp.waitForMail(rated.address, { timeoutMs: 15_000, after: before });
    expect(survey.subject).toMatch(/^How did we do\? Question of rated \[#\d+\]$/);
    expect(header(survey.raw, "Auto-Submitted")).toBe("auto-generated");
    expect(header(survey.raw, "In-Reply-To")).toBe(rated.messageId);
    const links = [...survey.text.matchAll(/(http:\/\/\S+\/support\/rate\/([A-Za-z0-9_-]+)\?score=(\d))/g)];
    expect(links.map((link) => link[3])).toEqual(["1", "2", "3", "4", "5"]);
    const path = new URL(links[3]![1]!).pathname;

    // Opening the link records nothing (mail scanners open links too): it shows the form with 4 chosen.
    const page = await fetch(`${stack.url}${path}?score=4`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toMatch(/value="4" checked/);
    expect((await fetch(`${stack.url}/support/rate.css`)).headers.get("content-type")).toContain("text/css");
    const listed = async () => ((await stack.request(`/tickets?ticketId=${rated.id}`, { key: tenant.apiKeys.main! })).body as { tickets: { csatScore: number | null; csatReview: string | null }[] }).tickets[0]!;
    expect((await listed()).csatScore).toBeNull();

    const post = (body: string) => fetch(`${stack.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    const noScore = await post("review=hmm");
    expect(noScore.status).toBe(400);
    expect(await noScore.text()).toContain("Choose a score from 1 to 5.");
    const sent = await post("score=4&review=Quick+and+kind");
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain("You rated this conversation 4 of 5.");
    expect(await listed()).toMatchObject({ csatScore: 4, csatReview: "Quick and kind" });
    // Once per ticket.
    expect(await (await post("score=1")).text()).toContain("already rated 4 of 5");
    expect((await listed()).csatScore).toBe(4);
    // An unknown link.
    expect((await fetch(`${stack.url}/support/rate/${"x".repeat(32)}`)).status).toBe(404);
  });

  it("mails no survey for a rejected ticket", async () => {
    const rejected = await mailedTicket("rejected");
    expect((await act(rejected.id, [{ type: "rejectTicket" }])).status).toBe(200);
    const marker = await mailedTicket("after-rejected");
    // Mails go out in order of their events: once a later ticket's reply arrived, none came for the rejection.
    expect(marker.messageId).toBeTruthy();
    expect(stack.smtp.mails.filter((mail) => mail.to.includes(rejected.address))).toHaveLength(1);
  });

  it("erases a ticket's mails with its player's data", async () => {
    const email = createServiceClient(EmailService, stack.serviceUrls.email);
    const before = await email.listTicketMails({ companyId: tenant.companyId, ticketId: ticket.id });
    expect(before.mails.length).toBe(3);
    // What came in for the ticket is kept in the email schema too: the answer and the held one (automatic mail is dropped before any ticket is looked up).
    const db = createDb({ url: stack.infra.databaseUrl, schema: "email", maxConnections: 1 });
    const received = () => sql<{ status: string; reason: string | null }>`select status, reason from inbound_mails where ticket_id = ${ticket.id} order by received_at`.execute(db);
    const listed = await stack.request(`/tickets?ticketId=${ticket.id}`, { key: tenant.apiKeys.main! });
    const servicePlayerId = (listed.body as { tickets: { servicePlayerId: string }[] }).tickets[0]!.servicePlayerId;
    const deadline = Date.now() + 15_000;
    try {
      expect((await received()).rows.map((row) => [row.status, row.reason])).toEqual([["accepted", null], ["held", "not_the_player"]]);
      const deleted = await stack.request("/player", { method: "DELETE", key: tenant.apiKeys.main!, json: { servicePlayerId } });
      expect(deleted.status, deleted.text).toBe(200);
      while ((await email.listTicketMails({ companyId: tenant.companyId, ticketId: ticket.id })).mails.length > 0 || (await received()).rows.length > 0) {
        if (Date.now() > deadline) throw new Error("the ticket's mails were not erased");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await db.destroy();
    }
  });
});
