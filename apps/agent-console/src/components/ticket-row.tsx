// A ticket as one row of a list (the inbox's views and search results): status, number (with
// a dot when a player wrote since the user last looked), player, language and tier, tags,
// assignee, age, who else is on it, and under it the SLA clock due soonest and the subject line.
import type { TicketListItem } from "../api.ts";
import { colleagues } from "../directory.ts";
import { formatAge, formatDuration } from "../format.ts";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { presence } from "../live.ts";

export const statusName = (status: string): string => t(`status.${status}` as MessageKey);

export function TicketRowContent({ item, userId }: { item: TicketListItem; userId: string | undefined }) {
  const onTicket = presence.value.get(item.ticket.id)?.agents.filter((agent) => agent.userId !== userId) ?? [];
  const assignee =
    item.assigneeId === null ? t("inbox.nobody") : item.assigneeId === userId ? t("inbox.me") : (colleagues.value.get(item.assigneeId)?.displayName ?? t("inbox.someoneElse"));
  return (
    <>
      <span class={`status status-${item.ticket.status}`}>{statusName(item.ticket.status)}</span>
      <span class="number">
        {item.unread && <span class="unread-dot" role="img" aria-label={t("inbox.unread")} />}#{item.ticket.runningId}
      </span>
      <span class="player">{item.ticket.playerName ?? item.ticket.email ?? item.ticket.playerId ?? t("ticket.unknownPlayer")}</span>
      <span class="meta">
        {item.ticket.language.toUpperCase()} · {t("ticket.tier", { tier: item.ticket.metadata.playerTier ?? 1 })}
        {item.ticket.tags.length > 0 ? ` · ${item.ticket.tags.join(", ")}` : ""}
      </span>
      <span class="assignee">{assignee}</span>
      <span class="age">{formatAge(item.ticket.lastActivityAt ?? item.ticket.createdAt)}</span>
      {onTicket.length > 0 ? <span class="presence-dot" title={onTicket.map((agent) => agent.displayName).join(", ")} aria-label={t("presence.onTicket", { names: onTicket.map((agent) => agent.displayName).join(", ") })} /> : <span />}
      {item.slaDueAt !== null && <SlaDue dueAt={item.slaDueAt} />}
      {item.subject !== "" && <span class="subject">{item.subject}</span>}
    </>
  );
}

/** The ticket's next SLA target: how long until it is due, or how long it is overdue. */
export function SlaDue({ dueAt }: { dueAt: string }) {
  const overdue = new Date(dueAt).getTime() <= Date.now();
  const duration = formatDuration(dueAt);
  return <span class={`sla${overdue ? " sla-overdue" : ""}`}>{overdue ? t("sla.overdue", { duration }) : t("sla.dueIn", { duration })}</span>;
}
