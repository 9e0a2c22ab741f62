// tickets.v1 RPCs mapped onto the use cases. Handlers only translate messages: rules live in
// the domain folders, SQL in the repositories.
import { fromJson, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { isUuid, validationError } from "@support/errors";
import { idempotent } from "@support/idempotency";
import { TicketsService, type ListAgentTicketsRequest, type ListTicketsRequest, type TicketAction as TicketActionMessage, type TicketEventSchema, type TicketSchema, type IncidentSchema } from "@support/proto";
import type { RawListQuery } from "./tickets/list-query.ts";
import { addTicketBreadcrumbs, listTicketBreadcrumbs } from "./breadcrumbs/breadcrumb.service.ts";
import type { TicketsContext } from "./context.ts";
import { erasePlayerTickets } from "./erasure/erasure.service.ts";
import type { MergedFrom, TicketEvent } from "./ticket-events/event.ts";
import { listAssignmentHistory, listTicketEvents } from "./ticket-events/event.service.ts";
import { requeueTicket } from "./routing/routing.service.ts";
import { closeIncident, getIncident, getOutbreakSettings, listCompanyIncidents, updateOutbreakSettings } from "./outbreaks/outbreaks.service.ts";
import type { IncidentRow } from "./outbreaks/outbreaks.repository.ts";
import type { OutbreakSettings } from "./outbreaks/outbreaks.ts";
import { applySuggestion, dismissSuggestion, listTicketTriage, setThreshold, trainCompany, triageReport, type TriageReport } from "./triage/triage.service.ts";
import { ruleHandlers } from "./rules/rule.routes.ts";
import { adminOrigin } from "./audit/automation-audit.ts";
import { getSlaSettings, putSlaSettings, slaReport, ticketSlaClocks } from "./sla/sla.service.ts";
import type { SlaSettings } from "./sla/sla.ts";
import { addEmailReply, openEmailTicket } from "./tickets/email-reply.service.ts";
import { rateTicket } from "./player-side/player-side.service.ts";
import type { TicketActionInput } from "./tickets/ticket-actions.ts";
import {
  countAgentViews, createTicket, getTicket, listAgentTickets, listTickets, markTicketRead, mergeTickets, performTicketActions,
} from "./tickets/ticket.service.ts";
import type { SavedView } from "./saved-views/saved-view.ts";
import { deleteView, listViews, saveView } from "./saved-views/saved-view.service.ts";
import { ticketUrl, type Ticket } from "./tickets/ticket.ts";
import type { PrecisionCount } from "@support/triage";

function precisionMessage(count: PrecisionCount) {
  return { right: count.right, wrong: count.wrong, precision: count.precision ?? undefined };
}

function triageSettingsMessage(report: TriageReport) {
  return {
    threshold: report.threshold,
    modelTrainedAt: report.model ? timestampFromDate(report.model.trainedAt) : undefined,
    modelTickets: report.model?.tickets ?? 0,
    modelTags: report.model?.schema.tags ?? [],
    modelFields: report.model?.schema.fields.map((field) => field.key) ?? [],
    set: precisionMessage(report.set),
    suggest: precisionMessage(report.suggest),
    byName: report.byName.map((entry) => ({ kind: entry.kind, name: entry.name, set: precisionMessage(entry.set), suggest: precisionMessage(entry.suggest) })),
  };
}

/** The settings as the agent API shows them: a JSON object. */
function slaSettingsJson(settings: SlaSettings): JsonObject {
  return { calendar: settings.calendar, policies: settings.policies } as unknown as JsonObject;
}

/** Every request names the caller's company; the gateway always sends a uuid, so anything else is a caller's bug. */
function company(companyId: string): string {
  if (!isUuid(companyId)) throw validationError([{ path: "/companyId", message: "must be a uuid" }]);
  return companyId.toLowerCase();
}

function incidentMessage(incident: IncidentRow): MessageInitShape<typeof IncidentSchema> {
  return {
    id: incident.id,
    gameId: incident.gameId,
    title: incident.title,
    status: incident.status,
    openedAt: timestampFromDate(incident.openedAt),
    closedAt: incident.closedAt === null ? undefined : timestampFromDate(incident.closedAt),
    closedByUserId: incident.closedByUserId ?? undefined,
    ticketCount: incident.ticketCount,
  };
}

/** An empty list of games means "no games" for an agent, so the gateway always sends the session's; absent only for internal callers. */
function gamesOf(gameIds: readonly string[]): string[] {
  return gameIds.map((id) => id.toLowerCase());
}

export function ticketMessage(ticket: Ticket, supportAppUrl: string): MessageInitShape<typeof TicketSchema> {
  return {
    id: ticket.id,
    runningId: BigInt(ticket.runningId),
    url: ticketUrl(supportAppUrl, ticket.id),
    gameId: ticket.gameId,
    gameEnvironmentId: ticket.gameEnvironmentId,
    servicePlayerId: ticket.servicePlayerId ?? undefined,
    playerId: ticket.playerId ?? undefined,
    playerName: ticket.playerName ?? undefined,
    email: ticket.email ?? undefined,
    status: ticket.status,
    supportSource: ticket.supportSource ?? undefined,
    channels: ticket.channels,
    language: ticket.language,
    resolutionType: ticket.resolutionType ?? undefined,
    csatScore: ticket.csatScore ?? undefined,
    csatReview: ticket.csatReview ?? undefined,
    issueSummary: ticket.issueSummary ?? undefined,
    issueResolution: ticket.issueResolution ?? undefined,
    followUpTicketId: ticket.followUpTicketId ?? undefined,
    reopenedFromTicketId: ticket.reopenedFromTicketId ?? undefined,
    createdAt: timestampFromDate(ticket.createdAt),
    lastActivityAt: ticket.lastActivityAt ? timestampFromDate(ticket.lastActivityAt) : undefined,
    tags: ticket.tags,
    fields: ticket.fields as JsonObject,
    metadata: ticket.metadata as JsonObject,
    assigneeId: ticket.assigneeId ?? undefined,
  };
}

/** Where a copied event came from (a merge), as the wire has it. */
function mergedFromMessage(data: object): MessageInitShape<typeof TicketEventSchema>["mergedFrom"] {
  if (!("mergedFrom" in data) || data.mergedFrom === undefined) return undefined;
  const { ticketId, runningId, eventId, createdAt } = data.mergedFrom as MergedFrom;
  return { ticketId, runningId: BigInt(runningId), eventId, createdAt: timestampFromDate(new Date(createdAt)) };
}

function eventMessage(event: TicketEvent): MessageInitShape<typeof TicketEventSchema> {
  const common = {
    id: event.id,
    createdAt: timestampFromDate(event.createdAt),
    actor: { type: event.actor.type, id: event.actor.id ?? undefined },
    mergedFrom: mergedFromMessage(event.data),
  };
  switch (event.type) {
    case "PLAYER_MESSAGE":
      return { ...common, payload: { case: "playerMessage", value: event.data } };
    case "AGENT_MESSAGE":
      return { ...common, payload: { case: "agentMessage", value: event.data } };
    case "PRIVATE_NOTE":
      return { ...common, payload: { case: "privateNote", value: event.data } };
    case "CSAT":
      return { ...common, payload: { case: "csat", value: { score: event.data.score, review: event.data.review ?? undefined } } };
    case "END":
      return { ...common, payload: { case: "end", value: event.data } };
    case "COLLECTOR_RESULT":
      return {
        ...common,
        payload: {
          case: "collectorResult",
          value: {
            ...event.data,
            fields: event.data.fields.map((field) => ({
              key: field.key ?? undefined,
              label: field.label,
              type: field.type,
              value: field.type === "FILE" ? undefined : fromJson(ValueSchema, field.value ?? null),
              attachments: field.attachments ?? [],
            })),
          },
        },
      };
  }
}

/** A wire action as the domain's input; an unset oneof is an action type this version does not know. */
function actionInput(action: TicketActionMessage): TicketActionInput {
  const { case: type, value } = action.action;
  switch (type) {
    case "addTags":
    case "removeTags":
      return { type, tagNames: value.tagNames, userId: value.userId };
    case "setFields":
      return { type, fields: value.fields ?? {}, userId: value.userId };
    case "setOnHold":
      return { type, onHold: value.onHold, userId: value.userId };
    case "setStatus":
      return { type, status: value.status, userId: value.userId };
    case "setPlayerInfo":
      return { type, player: { name: value.name, tier: value.tier } };
    case "sendMessage":
    case "addPrivateNote":
      return { type, message: value.message, userId: value.userId, attachments: value.attachments };
    case "assignTicket":
      return { type, assigneeId: value.assigneeId, userId: value.userId };
    case "resolveTicket":
    case "rejectTicket":
    case "unassignTicket":
      return { type, userId: value.userId };
    default:
      return { type: "unknown" };
  }
}

function savedViewMessage(view: SavedView) {
  return { id: view.id, name: view.name, q: view.q, view: view.view ?? "", createdAt: timestampFromDate(view.createdAt) };
}

/** The public list's filters, named by the RPC's fields (ListTickets, and ListAgentTickets which adds its own). */
function publicListQuery(req: ListTicketsRequest | ListAgentTicketsRequest): RawListQuery {
  return {
    playerId: req.playerId,
    email: req.email,
    gameId: req.gameId,
    ticketId: req.ticketId,
    tags: req.tags,
    fields: req.fields,
    status: req.status,
    createdAfter: req.createdAfter,
    createdBefore: req.createdBefore,
    order: req.order,
    cursor: req.cursor,
    limit: req.limit,
  };
}

export function registerRoutes(router: ConnectRouter, ctx: TicketsContext): void {
  const toMessage = (ticket: Ticket) => ticketMessage(ticket, ctx.supportAppUrl);

  router.service(TicketsService, {
    // With an Idempotency-Key, the use case runs in the transaction that records the key.
    createTicket: (req, context) => idempotent(ctx.db, req, context, async (db) => {
      const { ticketId, runningId } = await createTicket({ ...ctx, db }, {
        supportSource: "API",
        companyId: company(req.companyId),
        gameId: req.gameId,
        player: { externalId: req.player?.id, email: req.player?.email, name: req.player?.name, tier: req.player?.tier },
        message: req.message,
        attachmentIds: req.attachments,
        language: req.language,
        channels: req.channels,
        platform: req.platform,
        tags: req.tags,
        fields: req.fields ?? {},
        skipDuplicateCheck: req.skipDuplicateCheck,
      });
      return { ticketId, runningId: BigInt(runningId) };
    }),

    listTickets: async (req) => {
      const { tickets, nextCursor } = await listTickets(ctx, company(req.companyId), publicListQuery(req));
      return { tickets: tickets.map(toMessage), nextCursor: nextCursor ?? undefined };
    },

    listAgentTickets: async (req) => {
      const { tickets, nextCursor, matches, summaries } = await listAgentTickets(ctx, company(req.companyId), {
        userId: req.userId,
        gameIds: req.gameIds,
        raw: {
          ...publicListQuery(req),
          assignee: req.assignee,
          language: req.language,
          tier: req.tier,
          channel: req.channel,
          q: req.q,
          sort: req.sort,
          view: req.view,
        },
      });
      return {
        tickets: tickets.map(toMessage),
        nextCursor: nextCursor ?? undefined,
        matches: [...matches].map(([ticketId, match]) => ({ ticketId, field: match.field, eventId: match.eventId ?? undefined, snippet: match.snippet })),
        summaries: [...summaries].map(([ticketId, summary]) => ({
          ticketId, subject: summary.subject, unread: summary.unread, slaDueAt: summary.slaDueAt === null ? undefined : timestampFromDate(summary.slaDueAt),
        })),
      };
    },

    listSavedViews: async (req) => ({ views: (await listViews(ctx.db, req.companyId, req.userId)).map(savedViewMessage) }),

    createSavedView: async (req) => ({ view: savedViewMessage(await saveView(ctx.db, req.companyId, req.userId, { name: req.name, q: req.q, view: req.view })) }),

    deleteSavedView: async (req) => {
      await deleteView(ctx.db, req.companyId, req.userId, req.id);
      return {};
    },

    markTicketRead: async (req) => {
      await markTicketRead(ctx, company(req.companyId), { ticketId: req.ticketId, userId: req.userId });
      return {};
    },

    countAgentViews: async (req) => ({
      views: (await countAgentViews(ctx, company(req.companyId), { userId: req.userId, gameIds: req.gameIds })).map(({ view, count }) => ({ view, count: BigInt(count) })),
    }),

    getTicket: async (req) => ({ ticket: toMessage(await getTicket(ctx, company(req.companyId), req.ticketId)) }),

    performTicketActions: (req, context) => idempotent(ctx.db, req, context, async (db) => {
      const ticket = await performTicketActions({ ...ctx, db }, {
        companyId: company(req.companyId),
        ticketId: req.ticketId,
        actions: req.actions.map(actionInput),
        apiKeyId: req.apiKeyId ?? null,
        actingUserId: req.actingUserId ?? null,
      });
      return { success: true, ticket: toMessage(ticket) };
    }),

    mergeTickets: async (req) => {
      const { source, target } = await mergeTickets(ctx, {
        companyId: company(req.companyId),
        sourceTicketId: req.sourceTicketId,
        targetTicketId: req.targetTicketId,
        actingUserId: req.actingUserId,
      });
      return { source: toMessage(source), target: toMessage(target) };
    },

    rateTicket: async (req) => {
      const companyId = company(req.companyId);
      return { ticket: toMessage(await rateTicket(ctx, await getTicket(ctx, companyId, req.ticketId), req.score, req.review ?? null)) };
    },

    createEmailTicket: async (req) => {
      const created = await openEmailTicket(ctx, {
        companyId: company(req.companyId), gameId: req.gameId, email: req.email, name: req.name ?? null, message: req.message, language: req.language, attachments: req.attachments,
      });
      return { ticketId: created.ticketId, runningId: BigInt(created.runningId), eventId: created.eventId };
    },

    addEmailReply: async (req) => {
      const { ticketId, eventId, followUp } = await addEmailReply(ctx, { companyId: company(req.companyId), ticketId: req.ticketId, message: req.message, attachments: req.attachments });
      return { ticketId, eventId, followUp };
    },

    listTicketEvents: async (req) => ({ events: (await listTicketEvents(ctx, company(req.companyId), req.ticketId)).map(eventMessage) }),

    requeueTicket: async (req) => {
      await requeueTicket(ctx, company(req.companyId), req.ticketId, req.actingUserId);
      return {};
    },

    getOutbreakSettings: async (req) => ({ settings: await getOutbreakSettings(ctx, company(req.companyId)) }),

    updateOutbreakSettings: async (req) => {
      const input: OutbreakSettings = {
        enabled: req.settings?.enabled ?? false,
        minTickets: req.settings?.minTickets ?? Number.NaN,
        windowMinutes: req.settings?.windowMinutes ?? Number.NaN,
        similarity: req.settings?.similarity ?? Number.NaN,
      };
      return { settings: await updateOutbreakSettings(ctx, company(req.companyId), input, adminOrigin(req.actingUserId, req.clientAddress)) };
    },

    listIncidents: async (req) => ({
      incidents: (await listCompanyIncidents(ctx, company(req.companyId), gamesOf(req.gameIds), req.includeClosed)).map(incidentMessage),
    }),

    getIncident: async (req) => {
      const { incident, tickets } = await getIncident(ctx, company(req.companyId), req.incidentId, gamesOf(req.gameIds));
      return { incident: incidentMessage(incident), tickets: tickets.map((ticket) => ticketMessage(ticket, ctx.supportAppUrl)) };
    },

    closeIncident: async (req) => ({
      incident: incidentMessage(await closeIncident(ctx, company(req.companyId), req.incidentId, req.actingUserId, gamesOf(req.gameIds))),
    }),

    listAssignmentHistory: async (req) => ({
      changes: (await listAssignmentHistory(ctx, company(req.companyId), req.ticketId)).map((change) => ({
        createdAt: timestampFromDate(change.createdAt),
        fromUserId: change.from ?? undefined,
        toUserId: change.to ?? undefined,
        actor: { type: change.actor.type, id: change.actor.id ?? undefined },
      })),
    }),

    getSlaSettings: async (req) => {
      const settings = await getSlaSettings(ctx, company(req.companyId));
      return { settings: slaSettingsJson(settings), updatedAt: settings.updatedAt === null ? undefined : timestampFromDate(settings.updatedAt) };
    },

    setSlaSettings: async (req) => {
      const saved = await putSlaSettings(ctx, company(req.companyId), req.settings ?? null, adminOrigin(req.actingUserId, req.clientAddress));
      return { settings: slaSettingsJson(saved), updatedAt: timestampFromDate(saved.updatedAt) };
    },

    getTicketSla: async (req) => {
      const { policy, clocks } = await ticketSlaClocks(ctx, company(req.companyId), req.ticketId);
      return {
        policyId: policy?.id,
        policyName: policy?.name,
        clocks: clocks.map((c) => ({
          metric: c.metric, cycle: c.cycle, state: c.state, startedAt: timestampFromDate(c.startedAt), stoppedAt: c.stoppedAt === null ? undefined : timestampFromDate(c.stoppedAt),
          targetMinutes: c.targetMinutes, elapsedSeconds: BigInt(Math.floor(c.elapsedMs / 1000)), dueAt: c.dueAt === null ? undefined : timestampFromDate(c.dueAt),
        })),
      };
    },

    getSlaReport: async (req) => ({ rows: await slaReport(ctx, company(req.companyId), req.weeks) }),

    listTicketBreadcrumbs: async (req) => {
      const { breadcrumbs, clientClockOffsetMs } = await listTicketBreadcrumbs(ctx, company(req.companyId), req.ticketId);
      return {
        breadcrumbs: breadcrumbs.map((b) => ({ message: b.message, clientOccurredAt: timestampFromDate(b.clientOccurredAt) })),
        clientClockOffsetMs: clientClockOffsetMs === null ? undefined : BigInt(clientClockOffsetMs),
      };
    },

    addTicketBreadcrumbs: async (req) => {
      const added = await addTicketBreadcrumbs(ctx, {
        companyId: company(req.companyId),
        ticketId: req.ticketId,
        breadcrumbs: req.breadcrumbs.map((b) => ({ message: b.message, clientOccurredAt: b.clientOccurredAt ? timestampDate(b.clientOccurredAt) : undefined })),
        clientClockOffsetMs: req.clientClockOffsetMs === undefined ? null : Number(req.clientClockOffsetMs),
      });
      return { added };
    },

    listTicketTriage: async (req) => {
      const predictions = await listTicketTriage(ctx, company(req.companyId), req.ticketId, req.actingUserId);
      return {
        predictions: predictions.map((p) => ({
          id: p.id, kind: p.kind, name: p.name, value: p.value, confidence: p.confidence, decision: p.decision, state: p.state, createdAt: timestampFromDate(p.createdAt),
        })),
      };
    },

    applyTriageSuggestion: async (req) => {
      const ticket = await applySuggestion(ctx, company(req.companyId), req.ticketId, req.suggestionId, req.actingUserId);
      return { ticket: ticketMessage(ticket, ctx.supportAppUrl) };
    },

    dismissTriageSuggestion: async (req) => {
      await dismissSuggestion(ctx, company(req.companyId), req.ticketId, req.suggestionId, req.actingUserId);
      return {};
    },

    getTriageSettings: async (req) => ({ settings: triageSettingsMessage(await triageReport(ctx, company(req.companyId))) }),

    updateTriageSettings: async (req) => {
      const companyId = company(req.companyId);
      await setThreshold(ctx, companyId, req.threshold, adminOrigin(req.actingUserId, req.clientAddress));
      return { settings: triageSettingsMessage(await triageReport(ctx, companyId)) };
    },

    trainTriageModel: async (req) => trainCompany(ctx, company(req.companyId)),

    erasePlayerTickets: async (req) => {
      const counts = await erasePlayerTickets(ctx, { companyId: company(req.companyId), servicePlayerId: req.servicePlayerId });
      return {
        deletedTickets: counts.tickets,
        deletedEvents: counts.events,
        deletedBreadcrumbs: counts.breadcrumbs,
        deletedTags: counts.tags,
        deletedFieldValues: counts.fieldValues,
      };
    },

    ...ruleHandlers(ctx),
  });
}
