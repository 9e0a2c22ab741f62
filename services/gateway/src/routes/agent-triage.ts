// The triage of the AI flags in the agent API (docs/automation.md): a ticket's predictions, a
// suggestion applied or dismissed by the signed-in user (ticket scope as every ticket route),
// and the company's threshold, model and online precision (admins). The rules are the tickets
// service's.
import { notFound } from "@support/errors";
import type { TriagePrecision, TriageSettings } from "@support/proto";
import { seesGame, type AgentSessionState, type AgentSessionView } from "../agent-api/sessions.ts";
import type { TicketsClient } from "../clients.ts";
import { isoTimestamp } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { requireAdmin } from "./agent-settings.ts";

export interface AgentTriageRoutesDeps {
  tickets: TicketsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

function precisionDto(count: TriagePrecision | undefined): Schemas["AgentTriagePrecision"] {
  return { right: count?.right ?? 0, wrong: count?.wrong ?? 0, precision: count?.precision ?? null };
}

function settingsDto({ settings }: { settings?: TriageSettings | undefined }): Schemas["AgentTriageSettings"] {
  if (settings === undefined) throw new Error("tickets returned no triage settings");
  return {
    threshold: settings.threshold,
    model: settings.modelTrainedAt
      ? { trainedAt: isoTimestamp(settings.modelTrainedAt, "tickets", "triage modelTrainedAt"), tickets: settings.modelTickets, tags: settings.modelTags, fields: settings.modelFields }
      : null,
    set: precisionDto(settings.set),
    suggest: precisionDto(settings.suggest),
    byName: settings.byName.map((entry) => ({ kind: entry.kind as "tag" | "field", name: entry.name, set: precisionDto(entry.set), suggest: precisionDto(entry.suggest) })),
  };
}

export function registerAgentTriageRoutes(api: ApiRoutes, deps: AgentTriageRoutesDeps): void {
  const { tickets, guards } = deps;

  /** The ticket's id if the session's user may see it; the one 404 otherwise. */
  const ticketInScope = async (session: AgentSessionView, ticketId: string): Promise<string> => {
    const { ticket } = await tickets.getTicket({ companyId: session.companyId, ticketId });
    if (ticket === undefined || !seesGame(session, ticket.gameId)) throw notFound("ticket not found");
    return ticket.id;
  };

  api.operation<"listAgentTicketTriage", AgentSessionState>(
    "listAgentTicketTriage",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const ticketId = await ticketInScope(session, ctx.state.validated.params.ticketId);
      const { predictions } = await tickets.listTicketTriage({ companyId: session.companyId, ticketId, actingUserId: session.user.id });
      respond(ctx, 200, {
        predictions: predictions.map((p) => ({
          id: p.id,
          kind: p.kind as "tag" | "field",
          name: p.name,
          value: p.value,
          confidence: p.confidence,
          decision: p.decision as "set" | "suggest",
          state: p.state as "set" | "pending" | "applied" | "dismissed",
          createdAt: isoTimestamp(p.createdAt, "tickets", "triage createdAt"),
        })),
      });
    },
    { before: guards.read },
  );

  api.operation<"applyAgentTicketTriage", AgentSessionState>(
    "applyAgentTicketTriage",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { predictionId } = ctx.state.validated.params;
      const ticketId = await ticketInScope(session, ctx.state.validated.params.ticketId);
      await tickets.applyTriageSuggestion({ companyId: session.companyId, ticketId, suggestionId: predictionId, actingUserId: session.user.id });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );

  api.operation<"dismissAgentTicketTriage", AgentSessionState>(
    "dismissAgentTicketTriage",
    async (ctx) => {
      const session = ctx.state.agentSession;
      const { predictionId } = ctx.state.validated.params;
      const ticketId = await ticketInScope(session, ctx.state.validated.params.ticketId);
      await tickets.dismissTriageSuggestion({ companyId: session.companyId, ticketId, suggestionId: predictionId, actingUserId: session.user.id });
      respond(ctx, 204, "");
    },
    { before: guards.write },
  );

  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];

  api.operation<"getAgentTriageSettings", AgentSessionState>(
    "getAgentTriageSettings",
    async (ctx) => {
      respond(ctx, 200, settingsDto(await tickets.getTriageSettings({ companyId: ctx.state.agentSession.companyId })));
    },
    { before: read },
  );

  api.operation<"updateAgentTriageSettings", AgentSessionState>(
    "updateAgentTriageSettings",
    async (ctx) => {
      const session = ctx.state.agentSession;
      // The admin and their address: a change is recorded in the audit log (tickets.audit.recorded).
      const answer = await tickets.updateTriageSettings({ companyId: session.companyId, threshold: ctx.state.validated.body.threshold, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) });
      respond(ctx, 200, settingsDto(answer));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"trainAgentTriageModel", AgentSessionState>(
    "trainAgentTriageModel",
    async (ctx) => {
      const companyId = ctx.state.agentSession.companyId;
      await tickets.trainTriageModel({ companyId });
      respond(ctx, 200, settingsDto(await tickets.getTriageSettings({ companyId })));
    },
    { before: write },
  );
}
