// The support application's ticket view between tickets.v1 / players.v1 and the document's
// JSON. The ticket and its events are mapped by mappings/tickets.ts, exactly as the public API
// shows them: this file only adds what agents see beside them (the assignee, who wrote each
// event, the player's record, the names and types of its files, the delivery of the mails that
// carried agents' messages).
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  MailStatus,
  type AgentTicketSummary, type AgentViewCount, type HeldMail, type ListTicketBreadcrumbsResponse, type Mail, type MediaAttachment, type PendingDeletion, type Player, type Ticket, type TicketEvent,
  type TicketSearchMatch,
} from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { toBreadcrumbsDto, toEventDto, toTicketDto } from "./tickets.ts";
import { isoTimestampOrNull } from "./timestamps.ts";

const AUTHOR_TYPES: ReadonlySet<string> = new Set(["user", "api_key", "player", "system"]);

/** Who caused an event. An actor type this gateway does not know is shown as the system's. */
export function toEventAuthorDto(event: Pick<TicketEvent, "actor">): Schemas["AgentEventAuthor"] {
  const type = event.actor?.type ?? "";
  return AUTHOR_TYPES.has(type) ? { type: type as Schemas["AgentEventAuthor"]["type"], id: event.actor?.id ?? null } : { type: "system", id: null };
}

const MAIL_STATUSES: Record<MailStatus, Schemas["AgentEmailDelivery"]["status"] | undefined> = {
  [MailStatus.UNSPECIFIED]: undefined,
  [MailStatus.QUEUED]: "queued",
  [MailStatus.SENT]: "sent",
  [MailStatus.DEFERRED]: "deferred",
  [MailStatus.BOUNCED]: "bounced",
  [MailStatus.FAILED]: "failed",
};

export function toEmailDeliveryDto(mail: Mail): Schemas["AgentEmailDelivery"] | undefined {
  const status = MAIL_STATUSES[mail.status];
  if (status === undefined) return undefined;
  return {
    status,
    attempts: mail.attempts,
    sentAt: mail.sentAt ? timestampDate(mail.sentAt).toISOString() : null,
    nextAttemptAt: mail.nextAttemptAt ? timestampDate(mail.nextAttemptAt).toISOString() : null,
    lastError: mail.lastError ?? null,
  };
}

/** The conversation: every event the document knows, with its author, in creation order; `mails` (the ticket's, from the email service) add each agent message's delivery. */
export function toConversationDto(events: TicketEvent[], mails: Mail[] = []): Schemas["AgentConversationEntry"][] {
  const byEvent = new Map(mails.flatMap((mail) => (mail.eventId === undefined ? [] : [[mail.eventId, mail] as const])));
  return events.flatMap((event) => {
    const dto = toEventDto(event);
    if (dto === undefined) return [];
    const mail = byEvent.get(event.id);
    const emailDelivery = mail && toEmailDeliveryDto(mail);
    return [{ event: dto, author: toEventAuthorDto(event), ...(emailDelivery ? { emailDelivery } : {}) }];
  });
}

export function toPlayerRecordDto(player: Player): Schemas["AgentPlayerRecord"] {
  return {
    servicePlayerId: player.id,
    playerId: player.externalId ?? null,
    name: player.name ?? null,
    email: player.email ?? null,
    tier: (player.tier ?? null) as Schemas["AgentPlayerRecord"]["tier"],
    blocked: player.blocked,
  };
}

export function toTicketListItemDto(ticket: Ticket, summary: AgentTicketSummary | undefined, match?: TicketSearchMatch): Schemas["AgentTicketListItem"] {
  const item: Schemas["AgentTicketListItem"] = {
    ticket: toTicketDto(ticket),
    assigneeId: ticket.assigneeId ?? null,
    subject: summary?.subject ?? "",
    unread: summary?.unread ?? false,
    slaDueAt: isoTimestampOrNull(summary?.slaDueAt),
  };
  if (match !== undefined) item.match = toSearchMatchDto(match);
  return item;
}

export function toSearchMatchDto(match: TicketSearchMatch): Schemas["AgentSearchMatch"] {
  return {
    field: match.field as Schemas["AgentSearchMatch"]["field"],
    eventId: match.eventId ?? null,
    snippet: match.snippet.map((part) => ({ text: part.text, highlight: part.highlight })),
  };
}

/** The views' English names; the console shows its own translation of the id. */
const VIEW_NAMES: Record<Schemas["AgentViewCount"]["id"], string> = {
  mine: "Mine",
  unassigned: "Unassigned",
  open: "All open",
  waiting: "Waiting",
  on_hold: "On hold",
  closed_7d: "Closed in the last 7 days",
};

export function toViewCountDto(count: AgentViewCount): Schemas["AgentViewCount"] {
  const id = count.view as Schemas["AgentViewCount"]["id"];
  return { id, name: VIEW_NAMES[id], count: Number(count.count) };
}

export interface TicketViewParts {
  ticket: Ticket;
  events: TicketEvent[];
  breadcrumbs: ListTicketBreadcrumbsResponse;
  player: Player | undefined;
  /** The player's pending scheduled deletion, if any. */
  deletion: PendingDeletion | undefined;
  otherTickets: Ticket[];
  /** What media knows of the conversation's attachments (names and types). */
  attachments: MediaAttachment[];
  /** The ticket's mails to the player; empty when none or when the email service did not answer. */
  mails: Mail[];
  /** Mails held for an agent (their sender is not the player); empty likewise. */
  heldMails: HeldMail[];
}

export function toTicketViewDto(parts: TicketViewParts): Schemas["AgentTicketView"] {
  const { breadcrumbs, clientClockOffsetMs } = toBreadcrumbsDto(parts.breadcrumbs);
  return {
    ticket: toTicketDto(parts.ticket),
    assigneeId: parts.ticket.assigneeId ?? null,
    conversation: toConversationDto(parts.events, parts.mails),
    attachments: parts.attachments.map(toAttachmentInfoDto),
    heldMails: parts.heldMails.map((mail) => ({
      id: mail.id,
      from: mail.fromAddress,
      subject: mail.subject,
      text: mail.text,
      receivedAt: mail.receivedAt ? timestampDate(mail.receivedAt).toISOString() : new Date(0).toISOString(),
    })),
    player: {
      scheduledDeletion: parts.deletion
        ? {
            scheduledAt: timestampDate(parts.deletion.scheduledAt!).toISOString(),
            dueAt: timestampDate(parts.deletion.dueAt!).toISOString(),
            requestedBy: parts.deletion.requestedByType as "api_key" | "operator",
          }
        : null,
      record: parts.player ? toPlayerRecordDto(parts.player) : null,
      breadcrumbs,
      clientClockOffsetMs,
      otherTickets: parts.otherTickets.map(toTicketDto),
    },
  };
}

/** A conversation's file as the console shows it; media only stores the document's types. */
function toAttachmentInfoDto(attachment: MediaAttachment): Schemas["AgentAttachmentInfo"] {
  return {
    id: attachment.id,
    fileName: attachment.fileName,
    fileType: attachment.fileType as Schemas["AgentAttachmentInfo"]["fileType"],
    fileSize: Number(attachment.fileSize),
  };
}

/** Every attachment id of the conversation: messages, private notes and collector answers. */
export function conversationAttachmentIds(events: TicketEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    const { payload } = event;
    switch (payload.case) {
      case "playerMessage":
      case "agentMessage":
      case "privateNote":
        for (const attachment of payload.value.attachments) ids.add(attachment.id);
        break;
      case "collectorResult":
        for (const field of payload.value.fields) for (const attachment of field.attachments) ids.add(attachment.id);
        break;
      default:
        break;
    }
  }
  return ids;
}
