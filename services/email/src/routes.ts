// email.v1 RPCs mapped onto the use cases. Handlers only translate messages.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { EmailService, MailKind, MailStatus, type MailSchema } from "@support/proto";
import type { EmailContext } from "./context.ts";
import { heldMails } from "./inbound/inbound-mail.service.ts";
import { listMails } from "./mails/mail.service.ts";
import { RATING_PAGE_CSS } from "./ratings/rating-page.ts";
import { ratingPage, submitRating } from "./ratings/rating.service.ts";
import type { Mail } from "./mails/mail.ts";

const KINDS: Record<Mail["kind"], MailKind> = { agent_reply: MailKind.AGENT_REPLY, csat_request: MailKind.CSAT_REQUEST };
const STATUSES: Record<Mail["status"], MailStatus> = {
  queued: MailStatus.QUEUED,
  sent: MailStatus.SENT,
  deferred: MailStatus.DEFERRED,
  bounced: MailStatus.BOUNCED,
  failed: MailStatus.FAILED,
};

export function mailMessage(mail: Mail): MessageInitShape<typeof MailSchema> {
  return {
    id: mail.id,
    ticketId: mail.ticketId,
    eventId: mail.eventId ?? undefined,
    kind: KINDS[mail.kind],
    status: STATUSES[mail.status],
    attempts: mail.attempts,
    createdAt: timestampFromDate(mail.createdAt),
    sentAt: mail.sentAt ? timestampFromDate(mail.sentAt) : undefined,
    nextAttemptAt: mail.nextAttemptAt && (mail.status === "queued" || mail.status === "deferred") ? timestampFromDate(mail.nextAttemptAt) : undefined,
    lastError: mail.lastError ?? undefined,
    messageId: mail.messageId,
  };
}

export function registerRoutes(router: ConnectRouter, ctx: EmailContext): void {
  router.service(EmailService, {
    listTicketMails: async (req) => ({ mails: (await listMails(ctx, req.companyId, req.ticketId)).map(mailMessage) }),
    listHeldMails: async (req) => ({
      mails: (await heldMails(ctx, req.companyId, req.ticketId)).map((mail) => ({
        id: mail.id,
        fromAddress: mail.fromAddress,
        subject: mail.subject,
        text: mail.text,
        receivedAt: timestampFromDate(mail.receivedAt),
      })),
    }),
    getRatingPage: async (req) => {
      const page = await ratingPage(ctx, req.token, req.score);
      return { httpStatus: page.status, html: page.html, stylesheet: RATING_PAGE_CSS };
    },
    submitRating: async (req) => {
      const page = await submitRating(ctx, req.token, req.score, req.review);
      return { httpStatus: page.status, html: page.html };
    },
  });
}
