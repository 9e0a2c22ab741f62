// Rules' callWebhook actions (docs/automation.md, "Rules"): the tickets service writes a
// tickets.rule.webhook_requested event in the rule's run; here it becomes a delivery like any
// subscription's (the target checked again before every attempt, Standard Webhooks signatures,
// retries with backoff, the delivery log), through the company's one hidden subscription of
// source 'rules', made on first use, whose signing secret is the company's rule signing secret
// (admins see and rotate it in Settings → Rules). Each delivery carries its rule's URL.
import { randomUUID } from "node:crypto";
import type { DomainEvent } from "@support/events";
import { isUuid, validationError } from "@support/errors";
import { insertDeliveries } from "../deliveries/delivery.repository.ts";
import { payloadOf } from "../deliveries/public-event.ts";
import { newSigningSecret } from "../security/secret-box.ts";
import { checkTarget, urlProblem } from "../security/target.ts";
import { inTransaction, recordAudit, type AuditOrigin } from "./webhook.audit.ts";
import { insertRuleCallsWebhook, listWebhooks, readSecrets, replaceSecret } from "./webhook.repository.ts";
import type { WebhooksContext } from "./webhook.service.ts";
import { activePreviousExpiry, ROTATION_OVERLAP_MS, type Webhook } from "./webhook.ts";

/** The `type` of a rule call's body ({type, timestamp, data}); no subscription can ask for it. */
export const RULE_CALL_TYPE = "rule.webhook";

export interface RuleCallSecret {
  secret: string;
  previousSecretExpiresAt: Date | null;
  updatedAt: Date;
}

function requireCompany(companyId: string): void {
  if (!isUuid(companyId)) throw validationError([{ path: "/companyId", message: "must be a UUID" }]);
}

/** The company's rule-calls subscription, made (with a new secret) when it has none; in `ctx.db`'s transaction, locked. */
async function ruleCallsWebhook(ctx: Pick<WebhooksContext, "db" | "box">, companyId: string): Promise<Webhook> {
  const [existing] = await listWebhooks(ctx.db, companyId, { source: "rules", lock: true });
  if (existing) return existing;
  // Two first uses at once: the unique index lets one insert; the other reads it.
  await insertRuleCallsWebhook(ctx.db, randomUUID(), companyId, ctx.box.seal(newSigningSecret()));
  const [made] = await listWebhooks(ctx.db, companyId, { source: "rules", lock: true });
  if (!made) throw new Error("the rule calls' subscription was not made");
  return made;
}

async function secretOf(ctx: Pick<WebhooksContext, "db" | "box">, webhook: Webhook, now: Date): Promise<RuleCallSecret> {
  const sealed = await readSecrets(ctx.db, webhook.id);
  if (!sealed) throw new Error("the rule calls' subscription has no secret");
  return { secret: ctx.box.open(sealed.secret), previousSecretExpiresAt: activePreviousExpiry(webhook, now), updatedAt: webhook.updatedAt };
}

/** The company's rule signing secret, made on first use. */
export async function getRuleCallSecret(ctx: WebhooksContext, companyId: string, now = new Date()): Promise<RuleCallSecret> {
  requireCompany(companyId);
  return inTransaction(ctx.db, async (trx) => secretOf({ ...ctx, db: trx }, await ruleCallsWebhook({ ...ctx, db: trx }, companyId), now));
}

/** A new rule signing secret; the previous one signs beside it for ROTATION_OVERLAP_MS. */
export async function rotateRuleCallSecret(ctx: WebhooksContext, companyId: string, now = new Date(), origin?: AuditOrigin): Promise<RuleCallSecret> {
  requireCompany(companyId);
  return inTransaction(ctx.db, async (trx) => {
    const webhook = await ruleCallsWebhook({ ...ctx, db: trx }, companyId);
    const sealed = await readSecrets(trx, webhook.id);
    if (!sealed) throw new Error("the rule calls' subscription has no secret");
    const secret = newSigningSecret();
    const previousExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    const rotated = await replaceSecret(trx, webhook.id, ctx.box.seal(secret), sealed.secret, previousExpiresAt, now);
    await recordAudit(trx, origin, { action: "webhook.secret_rotated", webhook: rotated, detail: { ruleCalls: true, previousSecretExpiresAt: previousExpiresAt.toISOString() } }, now);
    return { secret, previousSecretExpiresAt: previousExpiresAt, updatedAt: rotated.updatedAt };
  });
}

/** Why each refused URL would not be sent to (a subscription's rules: scheme, credentials, addresses), by its index. */
export async function checkRuleTargets(ctx: Pick<WebhooksContext, "policy">, urls: readonly string[]): Promise<{ index: number; message: string }[]> {
  const problems: { index: number; message: string }[] = [];
  for (const [index, url] of urls.entries()) {
    const problem = urlProblem(url, ctx.policy);
    if (problem) {
      problems.push({ index, message: problem });
      continue;
    }
    const target = await checkTarget(url, ctx.policy);
    if (!target.ok) problems.push({ index, message: target.reason });
  }
  return problems;
}

/** A rule's call as a pending delivery of the company's rule-calls subscription; once per event. */
export async function queueRuleCall(ctx: Pick<WebhooksContext, "db" | "box">, event: DomainEvent<"tickets.rule.webhook_requested">): Promise<number> {
  const { data } = event;
  return inTransaction(ctx.db, async (trx) => {
    const webhook = await ruleCallsWebhook({ ...ctx, db: trx }, event.companyId);
    const body = { ruleId: data.ruleId, ruleName: data.ruleName, ticketId: data.ticketId, runningId: data.runningId, gameId: data.gameId, ticket: data.ticket };
    const inserted = await insertDeliveries(
      trx,
      [{
        id: randomUUID(), webhookId: webhook.id, companyId: event.companyId, eventId: event.id, eventType: RULE_CALL_TYPE, orderingKey: `ticket:${data.ticketId}`,
        ticketId: data.ticketId, playerId: null, payload: payloadOf(RULE_CALL_TYPE, event.occurredAt, body), url: data.url,
      }],
      new Date(),
    );
    return inserted.length;
  });
}
