// The email channel over the real stack and a real SMTP receiver: an agent's reply on an email
// ticket reaches the player as one mail in the ticket's language, DKIM-signed, threaded, with
// the conversation quoted and never a private note; a second reply answers the first; a relay
// that refuses the address for good or for now shows as bounced or deferred in the ticket view;
// the player's erasure takes the ticket's mails with it.
import { generateKeyPairSync, randomUUID } from "node:crypto";
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

interface ViewEntry {
  event: { type: string; id: string; message?: string };
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

beforeAll(async () => {
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
    // Plus-addressed per ticket with an unguessable token; a person wrote it, so not Auto-Submitted.
    expect(header(mail.raw, "Reply-To")).toMatch(new RegExp(`^support\\+[0-9a-f]{32}@${DOMAIN.replaceAll(".", "\\.")}$`));
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

  it("erases a ticket's mails with its player's data", async () => {
    const email = createServiceClient(EmailService, stack.serviceUrls.email);
    const before = await email.listTicketMails({ companyId: tenant.companyId, ticketId: ticket.id });
    expect(before.mails.length).toBe(2);
    const listed = await stack.request(`/tickets?ticketId=${ticket.id}`, { key: tenant.apiKeys.main! });
    const servicePlayerId = (listed.body as { tickets: { servicePlayerId: string }[] }).tickets[0]!.servicePlayerId;
    const deleted = await stack.request("/player", { method: "DELETE", key: tenant.apiKeys.main!, json: { servicePlayerId } });
    expect(deleted.status, deleted.text).toBe(200);
    const deadline = Date.now() + 15_000;
    while ((await email.listTicketMails({ companyId: tenant.companyId, ticketId: ticket.id })).mails.length > 0) {
      if (Date.now() > deadline) throw new Error("the ticket's mails were not erased");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
