// Events of the webhooks service.
import { Type } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { DateTime, Nullable, Uuid } from "./common.ts";

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

export const webhooksEvents = [webhookDisabled] as const;
