// Events of the tickets service, and the public ticket: the one shape of a ticket that the REST
// API lists, the `ticket.created` event carries and the webhooks deliver (the gateway's
// type check holds the OpenAPI document's Ticket to it).
import { Type, type Static } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { AttachmentRef, DateTime, FieldValue, FieldValues, Nullable, OneOf, Tier, Uuid } from "./common.ts";
import { auditEntryProperties } from "./content.ts";

export const TicketStatus = OneOf(["new", "assigned", "unassigned", "waiting", "on_hold", "closed"]);
const ResolutionType = OneOf(["resolved", "rejected", "auto_closed", "merged"]);

/** The ticket as GET /tickets lists it. */
export const PublicTicket = Type.Object({
  id: Uuid(),
  runningId: Type.Integer({ minimum: 1, description: "Human-readable ticket number, counting up from 1 per company" }),
  url: Type.String({ description: "Link to the conversation in the support application" }),
  gameId: Uuid(),
  gameEnvironmentId: Uuid(),
  servicePlayerId: Nullable(Uuid()),
  playerId: Nullable(Type.String(), "External player id given by the game; null for email/web tickets"),
  playerName: Nullable(Type.String()),
  email: Nullable(Type.String()),
  status: TicketStatus,
  supportSource: Nullable(Type.String(), "The API's support source enumeration (IN_APP, WEB, API, ...)"),
  channels: Type.Array(OneOf(["chat", "email", "messenger"])),
  language: Type.String({ description: "Language code (the API's language enumeration)" }),
  resolutionType: Nullable(ResolutionType),
  csatScore: Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
  csatReview: Nullable(Type.String()),
  issueSummary: Nullable(Type.String()),
  issueResolution: Nullable(Type.String()),
  followUpTicketId: Nullable(Uuid()),
  reopenedFromTicketId: Nullable(Uuid()),
  createdAt: DateTime(),
  lastActivityAt: Nullable(DateTime()),
  tags: Type.Array(Type.String(), { description: "Tag names" }),
  fields: FieldValues,
  metadata: Type.Object({ platform: Type.String(), playerTier: Type.Optional(Tier) }, { additionalProperties: FieldValue }),
});
export type PublicTicket = Static<typeof PublicTicket>;

const Actor = Type.Object(
  { type: OneOf(["user", "api_key", "player", "system"]), id: Nullable(Type.String()) },
  {
    description:
      "Who caused the change: a service user (userId of the action), the API key of the request (id null when the caller did not say which), the player, or the service itself (`id` auto-close, routing or triage)",
  },
);

const ticketRef = { ticketId: Uuid(), runningId: Type.Integer({ minimum: 1 }), gameId: Uuid() };

export const ticketCreated = defineEvent({
  type: "tickets.ticket.created",
  description:
    "A ticket was created (POST /tickets, or the player side). `data` is the ticket as GET /tickets lists it plus `assigneeId`. Always followed, in the same transaction, by a `tickets.ticket.message_added` for the first PLAYER_MESSAGE.",
  version: 1,
  schema: Type.Object({ ...PublicTicket.properties, assigneeId: Nullable(Uuid()) }),
});

export const statusChanged = defineEvent({
  type: "tickets.ticket.status_changed",
  description: "The status changed (a ticket action, a player message, or auto-close). Not published when an action leaves the status as it was.",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    from: TicketStatus,
    to: TicketStatus,
    resolutionType: Nullable(ResolutionType, "Set when `to` is closed"),
    actor: Actor,
  }),
});

export const ticketClosed = defineEvent({
  type: "tickets.ticket.closed",
  description:
    "The ticket was closed: `resolveTicket` (resolved), `rejectTicket` (rejected), the auto-close sweep (auto_closed, actor `{\"type\": \"system\", \"id\": \"auto-close\"}`) or a merge into another ticket (merged, with `followUpTicketId`). Published right after the `status_changed` of the same change.",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    resolutionType: ResolutionType,
    closedAt: DateTime(),
    actor: Actor,
    followUpTicketId: Type.Optional(Uuid("The ticket this one was merged into; only with resolutionType merged")),
  }),
});

export const ticketAssigned = defineEvent({
  type: "tickets.ticket.assigned",
  description: "The assignee changed (`assignTicket`, `unassignTicket`); `assigneeId` null: the ticket is now unassigned.",
  version: 1,
  schema: Type.Object({ ...ticketRef, assigneeId: Nullable(Uuid()), previousAssigneeId: Nullable(Uuid()), actor: Actor }),
});

export const messageAdded = defineEvent({
  type: "tickets.ticket.message_added",
  description:
    "A message was added: the player's (`PLAYER_MESSAGE`, also the first message of a new ticket), an agent's (`AGENT_MESSAGE`) or a private note (`PRIVATE_NOTE`; never show it to the player). `eventId` is the ticket event's id (GET /tickets/{ticketId}/events).",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    eventId: Uuid(),
    type: OneOf(["PLAYER_MESSAGE", "AGENT_MESSAGE", "PRIVATE_NOTE"]),
    message: Type.String(),
    language: Nullable(Type.String(), "null for PRIVATE_NOTE"),
    attachments: Type.Array(AttachmentRef),
    actor: Actor,
    channel: Type.Optional(
      OneOf(
        ["chat", "email"],
        "How the message travels: `email` for a player's answer by mail and for an agent's message on an email ticket (it is mailed to the player), `chat` otherwise; absent on private notes and in events written before it existed",
      ),
    ),
  }),
});

export const tagsChanged = defineEvent({
  type: "tickets.ticket.tags_changed",
  description: "Tags were added or removed (`addTags`, `removeTags`); `tags` is the full list afterwards. Not published when nothing changed.",
  version: 1,
  schema: Type.Object({ ...ticketRef, added: Type.Array(Type.String()), removed: Type.Array(Type.String()), tags: Type.Array(Type.String()), actor: Actor }),
});

export const fieldsChanged = defineEvent({
  type: "tickets.ticket.fields_changed",
  description: "Custom fields were set (`setFields`): `changed` holds the keys whose value changed, `fields` the full object afterwards. Not published when every value was already set.",
  version: 1,
  schema: Type.Object({ ...ticketRef, changed: FieldValues, fields: FieldValues, actor: Actor }),
});

export const ticketRated = defineEvent({
  type: "tickets.ticket.rated",
  description:
    "The player rated a ticket closed as `resolved` (CSAT, `POST /player-api/tickets/{ticketId}/csat`, once per ticket). `eventId` is the CSAT ticket event's id; `review` is null without one.",
  version: 1,
  schema: Type.Object({ ...ticketRef, eventId: Uuid(), score: Type.Integer({ minimum: 1, maximum: 5 }), review: Nullable(Type.String()), actor: Actor }),
});

export const collectorResultAdded = defineEvent({
  type: "tickets.ticket.collector_result_added",
  description:
    "The player answered a collector (`POST /player-api/tickets/{ticketId}/collector-results`). `eventId` is the COLLECTOR_RESULT ticket event's id, `resultId` the answer's. `fields` are the answers as the ticket event stores them: `value` for every type but `FILE`, `attachments` for `FILE`. When the answer moves a `waiting` ticket back to work, a `status_changed` of the same transaction comes first.",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    eventId: Uuid(),
    collectorId: Uuid(),
    resultId: Uuid(),
    title: Type.String(),
    fields: Type.Array(
      Type.Union([
        Type.Object({
          key: Nullable(Type.String()),
          label: Type.String(),
          type: OneOf(["TEXT", "SELECT_GROUP", "DROPDOWN", "DATE", "EMAIL", "CHECKBOX", "PLATFORM_SELECTOR"]),
          value: Nullable(Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String())])),
        }),
        Type.Object({ key: Nullable(Type.String()), label: Type.String(), type: OneOf(["FILE"]), attachments: Type.Array(AttachmentRef) }),
      ]),
      { minItems: 1 },
    ),
    actor: Actor,
  }),
});

export const ticketDeleted = defineEvent({
  type: "tickets.ticket.deleted",
  description:
    "The ticket was deleted with its events and breadcrumbs because its player's data was erased (`ErasePlayerTickets`). Ids only. Consumers that keep copies of ticket data delete theirs.",
  version: 1,
  schema: Type.Object({ ...ticketRef, reason: OneOf(["player_erased"], "Why the ticket was deleted; more reasons may come with a new version") }),
});

export const ticketMerged = defineEvent({
  type: "tickets.ticket.merged",
  description:
    "The ticket (`ticketId`, the source) was merged into another ticket of the same player and game (`targetTicketId`) by a user of the support application. In the same transaction: the source's `status_changed` and `closed` (resolutionType merged, `followUpTicketId` the target) come first, and the target's `tags_changed` when the source brought tags it lacked. `copiedEvents` is how many of the source's conversation events were copied into the target (each marked `mergedFrom` in GET /tickets/{targetTicketId}/events); no `message_added` is published for those copies.",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    targetTicketId: Uuid(),
    targetRunningId: Type.Integer({ minimum: 1 }),
    copiedEvents: Type.Integer({ minimum: 0 }),
    addedTags: Type.Array(Type.String(), { description: "Tags of the source the target did not have, added to it" }),
    actor: Actor,
  }),
});

export const incidentOpened = defineEvent({
  type: "tickets.incident.opened",
  description:
    "Outbreak detection opened an incident: at least the company's `minTickets` new tickets of one game within its window are alike (docs/automation.md#outbreaks). `ticketIds` are the tickets linked when it opened, oldest first; each ticket that joins it later is `tickets.incident.ticket_joined`.",
  version: 1,
  schema: Type.Object({
    incidentId: Uuid(),
    gameId: Uuid(),
    title: Type.String({ description: "The first line of the first ticket's message, at most 120 characters" }),
    openedAt: DateTime(),
    ticketIds: Type.Array(Uuid()),
  }),
});

export const incidentTicketJoined = defineEvent({
  type: "tickets.incident.ticket_joined",
  description:
    "A new ticket joined an open incident of outbreak detection: it is alike with the incident's tickets (docs/automation.md#outbreaks). One event per ticket; the tickets that opened the incident are in `tickets.incident.opened`. Internal (rules' `outbreak` trigger); no public webhook.",
  version: 1,
  schema: Type.Object({
    incidentId: Uuid(),
    gameId: Uuid(),
    ticketId: Uuid(),
    similarity: Type.Number({ minimum: 0, maximum: 1, description: "How alike the ticket is with the incident (cosine similarity, rounded to 3 decimals)" }),
    joinedAt: DateTime(),
  }),
});

export const incidentClosed = defineEvent({
  type: "tickets.incident.closed",
  description:
    "A user closed an open incident of outbreak detection (docs/automation.md#outbreaks): its tickets stay as they are, and new alike tickets no longer join it. Internal (the console's live incident banner); no public webhook.",
  version: 1,
  schema: Type.Object({
    incidentId: Uuid(),
    gameId: Uuid(),
    closedAt: DateTime(),
    closedByUserId: Uuid(),
  }),
});

const SlaNotice = {
  policyId: Type.String({ description: "The SLA policy's id (GET /agent-api/settings/sla)" }),
  policyName: Type.String(),
  metric: OneOf(["first_response", "next_response", "resolution"], "Which target: the first agent message, the agent's answer to the player's latest message, or the close"),
  cycle: Type.String({ description: "`ticket` for first_response and resolution; for next_response the id of the player message that started the clock" }),
  dueAt: DateTime("When the target is due (sla_warning) or was due (sla_breached), in the policy's working time"),
  targetMinutes: Type.Integer({ minimum: 1, description: "The policy's target, in minutes of working time (the company calendar's hours, or around the clock)" }),
  assigneeId: Nullable(Uuid()),
  actor: Actor,
};

export const slaWarning = defineEvent({
  type: "tickets.ticket.sla_warning",
  description:
    "An SLA clock of the ticket comes within its policy's `warnBeforeMinutes` of its target (announced once per ticket, metric and cycle, by the SLA sweep; actor `{type: system, id: sla}`). Not sent when the clock is already past its target (then only `sla_breached`).",
  version: 1,
  schema: Type.Object({ ...ticketRef, ...SlaNotice }),
});

export const slaBreached = defineEvent({
  type: "tickets.ticket.sla_breached",
  description:
    "An SLA clock of the ticket passed its target: no agent message (first_response, next_response) or no close (resolution) within the policy's working time. Announced once per ticket, metric and cycle, by the SLA sweep (within its interval of the due time); actor `{type: system, id: sla}`.",
  version: 1,
  schema: Type.Object({ ...ticketRef, ...SlaNotice }),
});

export const ticketsAuditRecorded = defineEvent({
  type: "tickets.audit.recorded",
  description:
    "A change of the company's automation settings, which the tickets service keeps: a rule created, changed (turned on or off included), deleted or the rules reordered, the SLA calendar and policies, the triage threshold or the outbreak settings changed, by an admin in the settings (actor `user`) or by a tenant file applied with `pnpm admin` (actor `operator`). Written in the change's transaction; a save that changes nothing writes none. Content records it in the company's audit log once per event id (and publishes content.audit.recorded for it). `before` and `after` hold only the parts that changed (a rule's name always, to tell which rule).",
  version: 1,
  schema: Type.Object({
    ...auditEntryProperties,
    action: Type.String({
      pattern: "^(rule|sla|triage|outbreaks)\\.[a-z_]+$",
      description: "`rule.created`, `rule.updated`, `rule.deleted`, `rule.reordered`, `sla.updated`, `triage.updated`, `outbreaks.updated`",
    }),
    target: Type.Object(
      { type: OneOf(["rule", "rules", "sla_settings", "triage_settings", "outbreak_settings"]), id: Uuid("The rule's id; the company's id for the company-wide settings and the rules' order") },
      { description: "The rule, or the company's settings changed" },
    ),
  }),
});

export const ruleWebhookRequested = defineEvent({
  type: "tickets.rule.webhook_requested",
  description:
    "A rule's `callWebhook` action ran on a ticket (docs/automation.md, \"Rules\"): the webhooks service posts `ticket` to `url`, signed with the company's rule signing secret, through its delivery pipeline (target check at send time, retries, delivery log). Written in the run's transaction, after the rule's ticket actions: `ticket` is the ticket as the rule left it. Actor `{type: system, id: rule:<ruleId>}`.",
  version: 1,
  schema: Type.Object({
    ...ticketRef,
    ruleId: Uuid(),
    ruleName: Type.String(),
    url: Type.String({ description: "The action's URL, checked when the rule was saved (and again by webhooks before each attempt)" }),
    ticket: PublicTicket,
    actor: Actor,
  }),
});

export const ticketsEvents = [
  ticketCreated, statusChanged, ticketClosed, ticketAssigned, messageAdded, tagsChanged, fieldsChanged, ticketRated,
  collectorResultAdded, ticketDeleted, ticketMerged, incidentOpened, incidentTicketJoined, incidentClosed, slaWarning, slaBreached,
  ticketsAuditRecorded, ruleWebhookRequested,
] as const;
