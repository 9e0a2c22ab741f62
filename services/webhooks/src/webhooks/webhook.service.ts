// Subscription use cases: validation, the URL's target check, secrets (sealed at rest, shown
// once), and the tenant-file apply. Every change runs in one transaction.
import { randomUUID } from "node:crypto";
import type { Kysely } from "@support/db";
import { isUuid, notFound, validationError, type ValidationIssue } from "@support/errors";
import type { Logger } from "@support/logging";
import type { WebhooksDatabase } from "../database.ts";
import { failPending } from "../deliveries/delivery.repository.ts";
import { newSigningSecret, type SecretBox } from "../security/secret-box.ts";
import { checkTarget, type TargetPolicy } from "../security/target.ts";
import {
  deleteWebhook as deleteRow, findWebhook, insertWebhook, listWebhooks, readSecrets, replaceSecret, updateWebhook as updateRow, type WebhookChanges,
} from "./webhook.repository.ts";
import { auditedSettings, inTransaction, recordAudit, type AuditOrigin } from "./webhook.audit.ts";
import { fieldIssues, normalizeFields, ROTATION_OVERLAP_MS, sameFields, type Webhook, type WebhookFields } from "./webhook.ts";

/** Games of a company (content.GetGame); an unknown or another company's game is not found. */
export interface GameDirectory {
  requireGame(companyId: string, gameId: string): Promise<void>;
}

export interface WebhooksContext {
  db: Kysely<WebhooksDatabase>;
  box: SecretBox;
  games: GameDirectory;
  policy: TargetPolicy;
  logger: Logger;
  /** Wakes the delivery engine (a test event or a retry is due now). */
  wake(): void;
}

const webhookNotFound = () => notFound("webhook not found");

function requireCompany(companyId: string): void {
  if (!isUuid(companyId)) throw validationError([{ path: "/companyId", message: "must be a UUID" }]);
}

/** Checks fields, the URL's addresses and the games; throws one validation error naming every issue. */
async function validate(ctx: WebhooksContext, companyId: string, fields: Partial<WebhookFields>, base = ""): Promise<void> {
  const issues: ValidationIssue[] = fieldIssues(fields, ctx.policy, base);
  if (issues.length === 0 && fields.url !== undefined) {
    const target = await checkTarget(fields.url, ctx.policy);
    if (!target.ok) issues.push({ path: `${base}/url`, message: target.reason });
  }
  if (issues.length === 0 && fields.gameIds !== undefined) {
    for (const [index, gameId] of fields.gameIds.entries()) {
      try {
        await ctx.games.requireGame(companyId, gameId);
      } catch (error) {
        if ((error as { code?: string }).code !== "not_found") throw error;
        issues.push({ path: `${base}/gameIds/${index}`, message: "game not found" });
      }
    }
  }
  if (issues.length > 0) throw validationError(issues);
}

export async function createWebhook(
  ctx: WebhooksContext,
  companyId: string,
  input: WebhookFields,
  origin?: AuditOrigin,
): Promise<{ webhook: Webhook; secret: string }> {
  requireCompany(companyId);
  await validate(ctx, companyId, input);
  const fields = normalizeFields(input);
  const secret = newSigningSecret();
  return inTransaction(ctx.db, async (trx) => {
    const webhook = await insertWebhook(trx, randomUUID(), companyId, fields, "api", ctx.box.seal(secret));
    await recordAudit(trx, origin, { action: "webhook.created", webhook, after: auditedSettings(webhook) });
    return { webhook, secret };
  });
}

export async function listCompanyWebhooks(ctx: WebhooksContext, companyId: string): Promise<Webhook[]> {
  requireCompany(companyId);
  return listWebhooks(ctx.db, companyId);
}

export async function getWebhook(ctx: WebhooksContext, companyId: string, webhookId: string): Promise<Webhook> {
  requireCompany(companyId);
  const webhook = isUuid(webhookId) ? await findWebhook(ctx.db, companyId, webhookId) : undefined;
  if (!webhook || webhook.source === "rules") throw webhookNotFound();
  return webhook;
}

/** What changes when `enabled` is set: enabling clears an automatic disable, disabling gives up pending deliveries. */
function enabledChanges(current: Webhook, enabled: boolean | undefined): WebhookChanges {
  if (enabled === undefined || enabled === current.enabled) return {};
  return enabled ? { enabled: true, disabledReason: null, failingSince: null } : { enabled: false, disabledReason: null };
}

export async function updateWebhook(
  ctx: WebhooksContext,
  companyId: string,
  webhookId: string,
  input: Partial<WebhookFields>,
  origin?: AuditOrigin,
): Promise<Webhook> {
  const current = await getWebhook(ctx, companyId, webhookId);
  await validate(ctx, companyId, input);
  const fields = normalizeFields(input);
  return inTransaction(ctx.db, async (trx) => {
    const locked = await findWebhook(trx, companyId, current.id, { lock: true });
    if (!locked) throw webhookNotFound();
    const updated = await updateRow(trx, locked.id, { ...fields, ...enabledChanges(locked, fields.enabled) }, new Date());
    if (locked.enabled && !updated.enabled) await failPending(trx, updated.id, "subscription disabled");
    const before = auditedSettings(locked);
    const after = auditedSettings(updated);
    // A save that changes nothing records nothing.
    if (JSON.stringify(before) !== JSON.stringify(after)) await recordAudit(trx, origin, { action: "webhook.updated", webhook: updated, before, after });
    return updated;
  });
}

export async function deleteWebhook(ctx: WebhooksContext, companyId: string, webhookId: string, origin?: AuditOrigin): Promise<void> {
  requireCompany(companyId);
  if (!isUuid(webhookId)) throw webhookNotFound();
  await inTransaction(ctx.db, async (trx) => {
    const current = await findWebhook(trx, companyId, webhookId, { lock: true });
    // The delivery log goes with it (foreign key cascade).
    if (!current || current.source === "rules" || !(await deleteRow(trx, companyId, webhookId))) throw webhookNotFound();
    await recordAudit(trx, origin, { action: "webhook.deleted", webhook: current, before: auditedSettings(current) });
  });
}

export async function rotateSecret(
  ctx: WebhooksContext,
  companyId: string,
  webhookId: string,
  now = new Date(),
  origin?: AuditOrigin,
): Promise<{ webhook: Webhook; secret: string }> {
  const current = await getWebhook(ctx, companyId, webhookId);
  return inTransaction(ctx.db, async (trx) => {
    const locked = await findWebhook(trx, companyId, current.id, { lock: true });
    const sealed = locked && (await readSecrets(trx, locked.id));
    if (!locked || !sealed) throw webhookNotFound();
    const secret = newSigningSecret();
    const previousExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    const webhook = await replaceSecret(trx, locked.id, ctx.box.seal(secret), sealed.secret, previousExpiresAt, now);
    await recordAudit(trx, origin, { action: "webhook.secret_rotated", webhook, detail: { url: webhook.url, previousSecretExpiresAt: previousExpiresAt.toISOString() } }, now);
    return { webhook, secret };
  });
}

export type ApplyAction = "created" | "updated" | "unchanged" | "deleted";

/**
 * Makes the company's tenant-file subscriptions match `specs`, by URL: all validated first,
 * then one transaction. Subscriptions created through the API are left alone.
 */
export async function applyWebhooks(ctx: WebhooksContext, companyId: string, specs: WebhookFields[]): Promise<{ webhook: Webhook; action: ApplyAction; secret?: string }[]> {
  requireCompany(companyId);
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, number>();
  specs.forEach((spec, index) => {
    const previous = seen.get(spec.url);
    if (previous !== undefined) issues.push({ path: `/webhooks/${index}/url`, message: `same URL as /webhooks/${previous}/url` });
    seen.set(spec.url, index);
  });
  if (issues.length > 0) throw validationError(issues);
  for (const [index, spec] of specs.entries()) {
    try {
      await validate(ctx, companyId, spec, `/webhooks/${index}`);
    } catch (error) {
      const details = (error as { details?: { issues?: ValidationIssue[] } }).details;
      if (!details?.issues) throw error;
      issues.push(...details.issues);
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date();
    const existing = await listWebhooks(trx, companyId, { source: "tenant_file", lock: true });
    const byUrl = new Map(existing.map((webhook) => [webhook.url, webhook]));
    const results: { webhook: Webhook; action: ApplyAction; secret?: string }[] = [];
    for (const input of specs) {
      const spec = normalizeFields(input);
      const current = byUrl.get(spec.url);
      if (!current) {
        const secret = newSigningSecret();
        results.push({ webhook: await insertWebhook(trx, randomUUID(), companyId, spec, "tenant_file", ctx.box.seal(secret)), action: "created", secret });
        continue;
      }
      byUrl.delete(spec.url);
      if (sameFields(current, spec)) {
        results.push({ webhook: current, action: "unchanged" });
        continue;
      }
      const updated = await updateRow(trx, current.id, { ...spec, ...enabledChanges(current, spec.enabled) }, now);
      if (current.enabled && !updated.enabled) await failPending(trx, updated.id, "subscription disabled");
      results.push({ webhook: updated, action: "updated" });
    }
    for (const gone of byUrl.values()) {
      await deleteRow(trx, companyId, gone.id);
      results.push({ webhook: gone, action: "deleted" });
    }
    return results;
  });
}
