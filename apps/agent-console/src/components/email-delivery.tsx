// Under an agent's message on an email ticket: where the mail that carries it to the player
// stands (queued, sent, delayed with its next try, bounced or undelivered with the relay's answer).
import type { EmailDelivery } from "../api.ts";
import { formatDateTime } from "../format.ts";
import { t } from "../i18n.ts";

export function EmailDeliveryLine({ delivery }: { delivery: EmailDelivery }) {
  const reason = delivery.lastError ?? "";
  const text =
    delivery.status === "sent"
      ? t("email.sent", { time: delivery.sentAt ? formatDateTime(delivery.sentAt) : "" })
      : delivery.status === "deferred"
        ? t("email.deferred", { reason, time: delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : "" })
        : delivery.status === "queued"
          ? t("email.queued")
          : t(delivery.status === "bounced" ? "email.bounced" : "email.failed", { reason });
  return <p class={`email-delivery email-${delivery.status}`}>{text}</p>;
}
