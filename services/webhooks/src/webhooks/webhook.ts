// A webhook subscription and the rules of its fields. Pure: no SQL, no HTTP.
import { isUuid, type ValidationIssue } from "@support/errors";
import { urlProblem, type TargetPolicy } from "../security/target.ts";

/** The public event types a subscription may ask for (docs/events.md describes each). */
export const publicEventTypes = [
  "ticket.created",
  "ticket.message_added",
  "ticket.private_note_added",
  "ticket.status_changed",
  "ticket.resolved",
  "ticket.closed",
  "ticket.assigned",
  "ticket.rated",
  "ticket.tags_changed",
  "ticket.fields_changed",
  "ticket.collector_result_added",
  "ticket.deleted",
  "incident.opened",
  "ticket.sla_warning",
  "ticket.sla_breached",
  "player.deleted",
  "audit.recorded",
  "webhook.test",
  "webhook.disabled",
] as const;

export type PublicEventType = (typeof publicEventTypes)[number];

const known = new Set<string>(publicEventTypes);
export const isPublicEventType = (value: string): value is PublicEventType => known.has(value);

/**
 * "rules": the hidden subscription of a company's rule calls (rule-calls.ts), never listed or
 * changed through the subscriptions' API.
 */
export type WebhookSource = "api" | "tenant_file" | "rules";

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_EVENT_TYPES = publicEventTypes.length;
export const MAX_GAME_IDS = 100;

export interface Webhook {
  id: string;
  companyId: string;
  url: string;
  description: string;
  eventTypes: string[];
  gameIds: string[];
  enabled: boolean;
  disabledReason: string | null;
  source: WebhookSource;
  createdAt: Date;
  updatedAt: Date;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
}

/** The fields a studio sets (create, update, tenant file). */
export interface WebhookFields {
  url: string;
  description: string;
  eventTypes: string[];
  gameIds: string[];
  enabled: boolean;
}

/** The previous secret's expiry while the overlap lasts, null after. */
export function activePreviousExpiry(webhook: Pick<Webhook, "previousSecretExpiresAt">, now: Date): Date | null {
  return webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now ? webhook.previousSecretExpiresAt : null;
}

/** Whether an event of `type` for `gameId` goes to this subscription. */
export function wants(webhook: Pick<Webhook, "enabled" | "eventTypes" | "gameIds">, type: string, gameId: string | null): boolean {
  if (!webhook.enabled || !webhook.eventTypes.includes(type)) return false;
  // An event of the company as a whole (an audit log entry, gameId null) names no game to filter by.
  return webhook.gameIds.length === 0 || gameId === null || webhook.gameIds.includes(gameId);
}

const unique = (values: string[]) => [...new Set(values)];

/** Issues of the studio's fields, JSON pointers under `base` ("" for the request body). */
export function fieldIssues(fields: Partial<WebhookFields>, policy: TargetPolicy, base = ""): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (fields.url !== undefined) {
    const problem = urlProblem(fields.url, policy);
    if (problem) issues.push({ path: `${base}/url`, message: problem });
  }
  if (fields.description !== undefined && fields.description.length > MAX_DESCRIPTION_LENGTH) {
    issues.push({ path: `${base}/description`, message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  }
  if (fields.eventTypes !== undefined) {
    if (fields.eventTypes.length === 0) issues.push({ path: `${base}/eventTypes`, message: "must name at least one event type" });
    if (fields.eventTypes.length > 50) issues.push({ path: `${base}/eventTypes`, message: "must name at most 50 event types" });
    fields.eventTypes.slice(0, 50).forEach((type, index) => {
      if (!isPublicEventType(type)) issues.push({ path: `${base}/eventTypes/${index}`, message: `unknown event type "${type.slice(0, 100)}"` });
    });
  }
  if (fields.gameIds !== undefined) {
    if (fields.gameIds.length > MAX_GAME_IDS) issues.push({ path: `${base}/gameIds`, message: `must name at most ${MAX_GAME_IDS} games` });
    fields.gameIds.slice(0, MAX_GAME_IDS).forEach((id, index) => {
      if (!isUuid(id)) issues.push({ path: `${base}/gameIds/${index}`, message: "must be a UUID" });
    });
  }
  return issues;
}

/** The values as stored: duplicates dropped, ids in lower case. */
export function normalizeFields<T extends Partial<WebhookFields>>(fields: T): T {
  return {
    ...fields,
    ...(fields.eventTypes ? { eventTypes: unique(fields.eventTypes) } : {}),
    ...(fields.gameIds ? { gameIds: unique(fields.gameIds.map((id) => id.toLowerCase())) } : {}),
  };
}

/** Whether applying `fields` would change nothing (ApplyWebhooks reports "unchanged"). */
export function sameFields(webhook: Webhook, fields: WebhookFields): boolean {
  const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((value) => b.includes(value));
  return (
    webhook.url === fields.url &&
    webhook.description === fields.description &&
    webhook.enabled === fields.enabled &&
    sameSet(webhook.eventTypes, fields.eventTypes) &&
    sameSet(webhook.gameIds, fields.gameIds)
  );
}
