// The email channel's queue and sender against a real Postgres and a real SMTP receiver: what a
// reply queues (once per event, nothing for a chat ticket, nothing while the queue is full), how
// the sender retries a deferred mail until the relay takes it, waits without a relay, and sends
// each mail once when two replicas run. The tickets and games the mails are about are given by
// the test (the whole path through the tickets service is covered by the gateway's email test).
import { randomUUID } from "node:crypto";
import { createDb, migrateToLatest, type Kysely } from "@support/db";
import { createLogger } from "@support/logging";
import { createMailer, type Mailer } from "@support/mail";
import { createTestInfra, startSmtpReceiver, type SmtpReceiver, type TestInfra } from "@support/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CompanySender, ConversationMessage, EmailContext, TicketForMail } from "../src/context.ts";
import type { EmailDatabase } from "../src/database.ts";
import { createMailDeliveryJob } from "../src/jobs/mail-delivery.job.ts";
import { listMails, mailAgentReply } from "../src/mails/mail.service.ts";
import { migrations } from "../src/migrations/index.ts";

const logger = createLogger({ service: "email-test", level: "silent" });
const COMPANY = randomUUID();

let infra: TestInfra;
let db: Kysely<EmailDatabase>;
let smtp: SmtpReceiver;
let mailer: Mailer;
const tickets = new Map<string, TicketForMail>();
/** Companies' own senders, as content would give them; absent: the defaults. */
const senders = new Map<string, CompanySender>();

function context(queueMax = 100): EmailContext {
  return {
    db,
    logger,
    tickets: {
      ticket: async (_companyId, ticketId) => tickets.get(ticketId),
      conversation: async (): Promise<ConversationMessage[]> => [{ id: randomUUID(), fromPlayer: true, message: "My ship is gone", createdAt: new Date(Date.now() - 60_000) }],
      addReply: async () => {
        throw new Error("no answers in these tests");
      },
      rate: async () => {
        throw new Error("no ratings in these tests");
      },
      openTicket: async () => {
        throw new Error("no new tickets in these tests");
      },
    },
    games: { nameOf: async () => "Galaxy Raiders" },
    senders: { senderOf: async (companyId) => senders.get(companyId) ?? { name: null, address: null } },
    files: {
      store: async () => {
        throw new Error("no files in these tests");
      },
    },
    settings: {
      fromAddress: "support@studio.example", replyAddress: "support@studio.example", webSupportUrl: "https://help.studio.example/support/", quotedMessages: 3, queueMax,
      inboundPerSenderPerHour: 20, inboundPerTicketPerHour: 30,
    },
    wake: () => {},
  };
}

function emailTicket(address: string, channels = ["email"]): string {
  const id = randomUUID();
  tickets.set(id, { id, runningId: tickets.size + 1, gameId: randomUUID(), channels, email: address, language: "en", status: "assigned", resolutionType: undefined, csatScore: undefined });
  return id;
}

const reply = (ticketId: string, sourceEventId = randomUUID()) => ({ sourceEventId, companyId: COMPANY, ticketId, eventId: randomUUID(), message: "We found it.", occurredAt: new Date() });

beforeAll(async () => {
  infra = await createTestInfra();
  db = createDb<EmailDatabase>({ url: infra.databaseUrl, schema: "email", maxConnections: 4 });
  await migrateToLatest(db, "email", migrations);
  smtp = await startSmtpReceiver();
  mailer = createMailer({ smtpUrl: smtp.url, from: "Player support <support@studio.example>", logger });
}, 60_000);

afterAll(async () => {
  mailer?.close();
  await smtp?.stop();
  await db?.destroy();
  await infra?.stop();
});

beforeEach(async () => {
  // Each test starts with an empty queue: the queue bound counts every waiting mail.
  await db.deleteFrom("mails").execute();
});

describe("what a reply queues", () => {
  it("queues one mail per event, however often the event comes, and none for a chat ticket", async () => {
    const ctx = context();
    const ticketId = emailTicket(`pat-${randomUUID().slice(0, 6)}@players.example`);
    const event = reply(ticketId);
    expect(await mailAgentReply(ctx, event)).toBe("queued");
    expect(await mailAgentReply(ctx, event)).toBe("none");
    expect(await listMails(ctx, COMPANY, ticketId)).toHaveLength(1);
    const chat = emailTicket("kim@players.example", ["chat"]);
    expect(await mailAgentReply(ctx, reply(chat))).toBe("none");
    expect(await listMails(ctx, COMPANY, chat)).toEqual([]);
  });

  it("queues nothing while EMAIL_QUEUE_MAX mails wait, and queues the reply once there is room", async () => {
    const ctx = context(1);
    const first = emailTicket("one@players.example");
    const second = emailTicket("two@players.example");
    expect(await mailAgentReply(ctx, reply(first))).toBe("queued");
    const held = reply(second);
    expect(await mailAgentReply(ctx, held)).toBe("queue_full");
    expect(await listMails(ctx, COMPANY, second)).toEqual([]);
    await createMailDeliveryJob({ db, mailer, logger, concurrency: 2, pollIntervalMs: 50, retrySchedule: [60], attemptTimeoutMs: 5_000 }).runOnce();
    expect(await mailAgentReply(ctx, held)).toBe("queued");
  });
});

describe("the sender", () => {
  it("retries a mail the relay deferred and sends it once the mailbox takes mail again", async () => {
    const ctx = context();
    const address = `full-${randomUUID().slice(0, 6)}@players.example`;
    const ticketId = emailTicket(address);
    smtp.refusedRecipients.set(address, 450);
    await mailAgentReply(ctx, reply(ticketId));
    const job = createMailDeliveryJob({ db, mailer, logger, concurrency: 2, pollIntervalMs: 50, retrySchedule: [0, 0], attemptTimeoutMs: 5_000 });
    await job.runOnce();
    expect((await listMails(ctx, COMPANY, ticketId))[0]).toMatchObject({ status: "deferred", attempts: 1, lastError: expect.stringContaining("450") });
    smtp.refusedRecipients.delete(address);
    await job.runOnce();
    const [mail] = await listMails(ctx, COMPANY, ticketId);
    expect(mail).toMatchObject({ status: "sent", attempts: 2, lastError: null });
    const received = await smtp.waitForMail(address);
    expect(received.subject).toBe(`Re: My ship is gone [#${tickets.get(ticketId)!.runningId}]`);
  });

  it("sends from the company's own sender, as it was when the mail was queued, and from MAIL_FROM without one", async () => {
    const ctx = context();
    const address = `star-${randomUUID().slice(0, 6)}@players.example`;
    const ticketId = emailTicket(address);
    senders.set(COMPANY, { name: "Star Studio Support", address: "help@star.example" });
    smtp.refusedRecipients.set(address, 450);
    try {
      await mailAgentReply(ctx, reply(ticketId));
      const job = createMailDeliveryJob({ db, mailer, logger, concurrency: 1, pollIntervalMs: 50, retrySchedule: [0, 0], attemptTimeoutMs: 5_000 });
      await job.runOnce();
      expect((await listMails(ctx, COMPANY, ticketId))[0]).toMatchObject({ status: "deferred", fromName: "Star Studio Support", fromAddress: "help@star.example" });
      // Edited meanwhile: the retry still sends what was queued.
      senders.set(COMPANY, { name: "Other Name", address: "other@star.example" });
      smtp.refusedRecipients.delete(address);
      await job.runOnce();
      const received = await smtp.waitForMail(address);
      expect(received.raw).toMatch(/^From: Star Studio Support <help@star\.example>\r?$/m);
      // Bounces still come back to MAIL_FROM's address; the Message-ID stays in its domain.
      expect(received.from).toBe("support@studio.example");
      expect(received.raw).toMatch(/^Message-ID: <[0-9a-f-]+@studio\.example>\r?$/m);
    } finally {
      senders.delete(COMPANY);
    }

    const plainAddress = `plain-${randomUUID().slice(0, 6)}@players.example`;
    const plain = emailTicket(plainAddress);
    await mailAgentReply(ctx, reply(plain));
    expect((await listMails(ctx, COMPANY, plain))[0]).toMatchObject({ fromName: "Galaxy Raiders Support", fromAddress: null });
    await createMailDeliveryJob({ db, mailer, logger, concurrency: 1, pollIntervalMs: 50, retrySchedule: [60], attemptTimeoutMs: 5_000 }).runOnce();
    expect((await smtp.waitForMail(plainAddress)).raw).toMatch(/^From: Galaxy Raiders Support <support@studio\.example>\r?$/m);
  });

  it("keeps mails deferred, with the reason, while no relay is configured", async () => {
    const ctx = context();
    const ticketId = emailTicket("nowhere@players.example");
    await mailAgentReply(ctx, reply(ticketId));
    const unconfigured = createMailer({ smtpUrl: "", from: "support@studio.example", logger });
    await createMailDeliveryJob({ db, mailer: unconfigured, logger, concurrency: 1, pollIntervalMs: 50, retrySchedule: [60], attemptTimeoutMs: 5_000 }).runOnce();
    expect((await listMails(ctx, COMPANY, ticketId))[0]).toMatchObject({ status: "deferred", attempts: 1, lastError: expect.stringContaining("not configured") });
  });

  it("sends each mail once when two replicas run at the same time", async () => {
    const ctx = context();
    const addresses = Array.from({ length: 12 }, (_, i) => `replica-${i}-${randomUUID().slice(0, 6)}@players.example`);
    for (const address of addresses) await mailAgentReply(ctx, reply(emailTicket(address)));
    const before = smtp.mails.length;
    const settings = { db, mailer, logger, concurrency: 3, pollIntervalMs: 20, retrySchedule: [60], attemptTimeoutMs: 5_000 };
    const replicas = [createMailDeliveryJob(settings), createMailDeliveryJob(settings)];
    for (const replica of replicas) replica.start();
    for (const address of addresses) await smtp.waitForMail(address, { after: before, timeoutMs: 10_000 });
    await Promise.all(replicas.map((replica) => replica.stop()));
    const received = smtp.mails.slice(before).flatMap((mail) => mail.to).filter((to) => addresses.includes(to));
    expect(received.sort()).toEqual([...addresses].sort());
  });
});
