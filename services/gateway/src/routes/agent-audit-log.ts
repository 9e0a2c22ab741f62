// /agent-api/audit-log: the company's audit log for its admins, a page at a time or as a CSV or
// JSON file. Content keeps the log and checks that the session is an admin's.
import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { AuditEntry } from "@support/proto";
import { stringify } from "csv-stringify/sync";
import type { Context } from "koa";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { AgentAccessClient } from "../clients.ts";
import { isoTimestamp } from "../mappings/timestamps.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { auditActorDto, requireAdmin } from "./agent-settings.ts";

export interface AgentAuditLogRoutesDeps {
  agentAccess: AgentAccessClient;
  guards: AgentApiGuards;
}

/** Most entries of one export; the answer says when it stopped there. */
export const AUDIT_EXPORT_MAX = 100_000;
const EXPORT_PAGE = 200;

type AuditQuery = { action?: string; actorId?: string; targetType?: string; since?: string; until?: string };

function filterOf(query: AuditQuery): { action?: string; actorId?: string; targetType?: string; since?: Timestamp; until?: Timestamp } {
  return {
    action: query.action,
    actorId: query.actorId,
    targetType: query.targetType,
    since: query.since === undefined ? undefined : timestampFromDate(new Date(query.since)),
    until: query.until === undefined ? undefined : timestampFromDate(new Date(query.until)),
  };
}

export function auditEntryDto(entry: AuditEntry): Schemas["AgentAuditEntry"] {
  return {
    id: entry.id,
    action: entry.action,
    userId: entry.userId ?? null,
    actor: auditActorDto({ type: entry.actorType, id: entry.actorId, name: entry.actorName }),
    clientAddress: entry.clientAddress ?? null,
    target: entry.targetType !== undefined && entry.targetId !== undefined ? { type: entry.targetType, id: entry.targetId } : null,
    before: entry.before ?? null,
    after: entry.after ?? null,
    detail: entry.detail ?? {},
    createdAt: isoTimestamp(entry.createdAt, "content", "audit entry createdAt"),
  };
}

const CSV_COLUMNS = ["id", "createdAt", "action", "actorType", "actorId", "actorName", "userId", "targetType", "targetId", "clientAddress", "before", "after", "detail"] as const;

function csvRow(entry: Schemas["AgentAuditEntry"]): string[] {
  const json = (value: unknown) => (value === null ? "" : JSON.stringify(value));
  return [
    entry.id, entry.createdAt, entry.action, entry.actor.type, entry.actor.id ?? "", entry.actor.name ?? "", entry.userId ?? "",
    entry.target?.type ?? "", entry.target?.id ?? "", entry.clientAddress ?? "", json(entry.before), json(entry.after), json(entry.detail),
  ];
}

/** Neutralises a cell a spreadsheet would run as a formula (a leading =, +, -, @, tab or carriage return). */
function spreadsheetSafe(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

export function registerAgentAuditLogRoutes(api: ApiRoutes, deps: AgentAuditLogRoutesDeps): void {
  const { agentAccess, guards } = deps;

  api.operation<"listAgentAuditLog", AgentSessionState>(
    "listAgentAuditLog",
    async (ctx) => {
      const { limit, before, ...filter } = ctx.state.validated.query;
      const page = await agentAccess.listAuditLog({ sessionToken: ctx.state.agentSessionToken, limit: limit ?? 50, before: before ?? "", ...filterOf(filter) });
      respond(ctx, 200, { entries: page.entries.map(auditEntryDto), nextBefore: page.nextBefore ?? null });
    },
    { before: [...guards.read, requireAdmin] },
  );

  api.operation<"exportAgentAuditLog", AgentSessionState>(
    "exportAgentAuditLog",
    async (ctx) => {
      const { format, ...filter } = ctx.state.validated.query;
      const request = { sessionToken: ctx.state.agentSessionToken, limit: EXPORT_PAGE, ...filterOf(filter) };
      const entries: Schemas["AgentAuditEntry"][] = [];
      let before = "";
      let truncated = false;
      for (;;) {
        const page = await agentAccess.listAuditLog({ ...request, before });
        entries.push(...page.entries.map(auditEntryDto));
        if (entries.length >= AUDIT_EXPORT_MAX) {
          truncated = entries.length > AUDIT_EXPORT_MAX || page.nextBefore !== undefined;
          entries.length = Math.min(entries.length, AUDIT_EXPORT_MAX);
          break;
        }
        if (page.nextBefore === undefined) break;
        before = page.nextBefore;
      }
      const day = new Date().toISOString().slice(0, 10);
      ctx.set("Content-Disposition", `attachment; filename="audit-log-${day}.${format}"`);
      if (truncated) ctx.set("X-Audit-Truncated", "true");
      if (format === "json") {
        respond(ctx, 200, entries);
        return;
      }
      const plain = ctx as Context;
      plain.status = 200;
      plain.type = "text/csv; charset=utf-8";
      plain.body = stringify([[...CSV_COLUMNS], ...entries.map((entry) => csvRow(entry).map(spreadsheetSafe))], { record_delimiter: "windows" });
    },
    { before: [...guards.read, requireAdmin] },
  );
}
