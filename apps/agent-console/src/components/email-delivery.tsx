// Under an agent's message on an email ticket: where the mail that carries it to the player
// stands (queued, sent, delayed with its next try, bounced or undelivered with the relay's answer);
// beside the conversation, the mails held because their sender is not the player.
import type { EmailDelivery, HeldMail } from "../api.ts";
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

/** The mails held for an agent beside the conversation: who sent them, and their text (as text). */
export function HeldMails({ mails }: { mails: HeldMail[] }) {
  if (mails.length === 0) return null;
  return (
    <section class="held-mails" aria-labelledby="held-mails-title">
      <h2 id="held-mails-title">{t("email.held")}</h2>
      <p class="muted">{t("email.heldHint")}</p>
      <ul>
        {mails.map((mail) => (
          <li key={mail.id}>
            <p class="held-from">{t("email.heldFrom", { from: mail.from, time: formatDateTime(mail.receivedAt) })}</p>
            <p class="held-subject"><strong>{mail.subject}</strong></p>
            <p class="text">{mail.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
