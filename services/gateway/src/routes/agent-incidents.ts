// /agent-api/incidents: outbreaks as agents handle them (docs/automation.md, "Outbreaks").
// Detection, the incidents and their tickets live in the tickets service; this scopes them to
// the session's games, and composes "answer all" from what the ticket view already does for
// one ticket: the canned reply content makes for each ticket (RenderCannedReply), sent through the
// ticket actions as the user's reply (so each player gets it by their channel). The game's
// announcement goes through the company settings like the Settings page's (audited, admins).
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Incident } from "@support/proto";
import { connectToAppError } from "@support/rpc";
import type { Middleware } from "koa";
import type { AgentSessionState, AgentSessionView } from "../agent-api/sessions.ts";
import type { CannedResponsesClient, CompanySettingsClient, TicketsClient } from "../clients.ts";
import { toActionMessage, toTicketDto } from "../mappings/tickets.ts";
import { idempotencyKey } from "../middleware/idempotency.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { getOperation } from "../openapi/operations.ts";
import type { Schemas } from "../openapi/types.ts";
import { announcementDto } from "./agent-settings-articles.ts";
import { requireAdmin } from "./agent-settings.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentIncidentRoutesDeps {
  tickets: TicketsClient;
  cannedResponses: CannedResponsesClient;
  companySettings: CompanySettingsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

/** Deadline of "answer all" (server.ts): 500 tickets at four at a time, each a render and a reply. */
export const ANSWER_INCIDENT_TIMEOUT_MS = 60_000;

/** Tickets answered at once: the replies of one incident go out in parallel, within the services' pools. */
const ANSWER_CONCURRENCY = 4;

export function incidentDto(incident: Incident): Schemas["AgentIncident"] {
  return {
    id: incident.id,
    gameId: incident.gameId,
    title: incident.title,
    status: incident.status as Schemas["AgentIncident"]["status"],
    openedAt: timestampDate(incident.openedAt!).toISOString(),
    closedAt: incident.closedAt ? timestampDate(incident.closedAt).toISOString() : null,
    closedByUserId: incident.closedByUserId ?? null,
    ticketCount: incident.ticketCount,
  };
}

export function registerAgentIncidentRoutes(api: ApiRoutes, deps: AgentIncidentRoutesDeps): void {
  const { tickets, cannedResponses, companySettings, guards } = deps;
  const scope = (session: AgentSessionView) => ({ companyId: session.companyId, gameIds: session.gameIds });

  api.operation<"listAgentIncidents", AgentSessionState>(
    "listAgentIncidents",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { incidents } = await tickets.listIncidents({ ...scope(session), includeClosed: ctx.state.validated.query.includeClosed ?? false });
      respond(ctx, 200, { incidents: incidents.map(incidentDto) });
    },
    { before: guards.read },
  );

  api.operation<"getAgentIncident", AgentSessionState>(
    "getAgentIncident",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const answer = await tickets.getIncident({ ...scope(session), incidentId: ctx.state.validated.params.incidentId });
      respond(ctx, 200, { incident: incidentDto(answer.incident!), tickets: answer.tickets.map(toTicketDto) });
    },
    { before: guards.read },
  );

  api.operation<"closeAgentIncident", AgentSessionState>(
    "closeAgentIncident",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { incident } = await tickets.closeIncident({ ...scope(session), incidentId: ctx.state.validated.params.incidentId, actingUserId: session.user.id });
      respond(ctx, 200, incidentDto(incident!));
    },
    { before: guards.write },
  );

  // As a reply on one ticket: the key is the company's and the user is part of the request.
  const idempotency = idempotencyKey(getOperation("answerAgentIncident"), (state) => (state as AgentSessionState).agentSession.user.id) as Middleware;
  api.operation<"answerAgentIncident", AgentSessionState>(
    "answerAgentIncident",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { cannedResponseId } = ctx.state.validated.body;
      await idempotency(ctx as never, async () => {
        const { incident, tickets: linked } = await tickets.getIncident({ ...scope(session), incidentId: ctx.state.validated.params.incidentId });
        // The reply of each ticket is content's (RenderCannedReply: the text in the ticket's
        // language, the placeholders, the response's actions), the same as a rule's
        // sendCannedResponse action sends.
        const render = (ticket: { gameId: string; language: string; runningId: bigint; playerName?: string | undefined }) =>
          cannedResponses.renderCannedReply({
            companyId: session.companyId, cannedResponseId, gameId: ticket.gameId, language: ticket.language, ticketNumber: ticket.runningId,
            playerName: ticket.playerName, agentName: session.user.displayName,
          });
        // Refused before anything is sent: not the company's, retired, or of another game.
        await render({ gameId: incident!.gameId, language: linked[0]?.language ?? "en", runningId: linked[0]?.runningId ?? 1n });
        type Outcome = { answered: string } | { skipped: string } | { failed: Schemas["AgentIncidentAnswer"]["failed"][number] };
        const answerOne = async (ticket: (typeof linked)[number]): Promise<Outcome> => {
          if (ticket.status === "closed") return { skipped: ticket.id };
          try {
            const { actions } = await render(ticket);
            await tickets.performTicketActions({
              companyId: session.companyId,
              ticketId: ticket.id,
              actingUserId: session.user.id,
              actions: actions.map((action) => toActionMessage(action as unknown as Schemas["Action"])),
            });
            return { answered: ticket.id };
          } catch (error) {
            // One ticket changed meanwhile (closed, erased) must not keep the others' players waiting.
            const appError = connectToAppError(error);
            if (appError.code === "unavailable" || appError.code === "deadline_exceeded" || appError.code === "internal") throw error;
            return { failed: { ticketId: ticket.id, code: appError.code, message: appError.message } };
          }
        };
        const outcomes: Outcome[] = [];
        for (let start = 0; start < linked.length; start += ANSWER_CONCURRENCY) outcomes.push(...(await Promise.all(linked.slice(start, start + ANSWER_CONCURRENCY).map(answerOne))));
        // In the incident's order, whatever order the replies finished in.
        const result: Schemas["AgentIncidentAnswer"] = {
          answered: outcomes.flatMap((outcome) => ("answered" in outcome ? [outcome.answered] : [])),
          skipped: outcomes.flatMap((outcome) => ("skipped" in outcome ? [outcome.skipped] : [])),
          failed: outcomes.flatMap((outcome) => ("failed" in outcome ? [outcome.failed] : [])),
        };
        respond(ctx, 200, result);
      });
    },
    { before: [...guards.write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"publishAgentIncidentAnnouncement", AgentSessionState>(
    "publishAgentIncidentAnnouncement",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { incident } = await tickets.getIncident({ ...scope(session), incidentId: ctx.state.validated.params.incidentId });
      const { shortContent, longContent } = ctx.state.validated.body;
      const { announcement } = await companySettings.setCompanyAnnouncement({
        change: { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) },
        gameId: incident!.gameId,
        shortContent: shortContent as JsonObject,
        longContent: (longContent ?? undefined) as JsonObject | undefined,
      });
      respond(ctx, 200, announcementDto(announcement!));
    },
    { before: [...guards.write, requireAdmin, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"getAgentSettingsOutbreaks", AgentSessionState>(
    "getAgentSettingsOutbreaks",
    async (ctx) => {
      const { settings } = await tickets.getOutbreakSettings({ companyId: ctx.state.agentSession.companyId });
      respond(ctx, 200, settingsDto(settings));
    },
    { before: [...guards.read, requireAdmin] },
  );

  api.operation<"setAgentSettingsOutbreaks", AgentSessionState>(
    "setAgentSettingsOutbreaks",
    async (ctx) => {
      const session = ctx.state.agentSession;
      // The admin and their address: a change is recorded in the audit log (tickets.audit.recorded).
      const { settings } = await tickets.updateOutbreakSettings({ companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx), settings: ctx.state.validated.body });
      respond(ctx, 200, settingsDto(settings));
    },
    { before: [...guards.write, requireAdmin, jsonBody(deps.bodyLimitBytes)] },
  );
}

function settingsDto(settings: { enabled: boolean; minTickets: number; windowMinutes: number; similarity: number } | undefined): Schemas["AgentOutbreakSettings"] {
  if (!settings) throw new Error("tickets returned no settings");
  return { enabled: settings.enabled, minTickets: settings.minTickets, windowMinutes: settings.windowMinutes, similarity: settings.similarity };
}
