// Events of the webhooks service.
import { Type } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { DateTime, Nullable, Uuid } from "./common.ts";
import { auditEntryProperties } from "./content.ts";

export const webhookDisabled = defineEvent({
  type: "webhooks.webhook.disabled",
  description:
    "The service disabled a subscription whose deliveries all failed for WEBHOOK_DISABLE_AFTER_HOURS (an alert or a notice to the studio can hang off it).",
  version: 1,
  schema: Type.Object({
    webhookId: Uuid(),
    url: Type.String(),
    reason: Type.String(),
    failingSince: Nullable(DateTime()),
    disabledAt: DateTime(),
  }),
});

export const webhooksAuditRecorded = defineEvent({
  type: "webhooks.audit.recorded",
  description:
    "A change of a company's webhook subscriptions made by an admin in the settings (created, updated, deleted, secret rotated, test event sent, delivery retried), written in the change's transaction. Content records it in the company's audit log once per event id (and publishes content.audit.recorded for it). It never carries a signing secret.",
  version: 1,
  schema: Type.Object({
    ...auditEntryProperties,
    action: Type.String({ pattern: "^webhook\\.[a-z_]+$", description: "`webhook.created`, `webhook.updated`, `webhook.deleted`, `webhook.secret_rotated`, `webhook.test_sent`, `webhook.delivery_retried`" }),
    target: Type.Object({ type: Type.Literal("webhook"), id: Uuid() }, { description: "The subscription changed" }),
  }),
});

export const webhooksEvents = [webhookDisabled, webhooksAuditRecorded] as const;
