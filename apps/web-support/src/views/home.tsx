// The home page: the game's announcement, the help center's search over its help articles (the
// results in place of the list while searching), the player's conversations and the way to
// contact support.
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { PlayerTicket, ResourceSummary } from "../api.ts";
import { href, useApp, usePageHeading } from "../app-context.tsx";
import type { MessageKey } from "../messages/en.ts";
import { directionOf, formatMoment } from "../i18n.ts";
import { HelpSearch, HelpSearchResults, type SearchState } from "./help-search.tsx";
import { VerifyEmail } from "./verify-email.tsx";

export function statusKey(ticket: { status: string; resolutionType: string | null }): MessageKey {
  const name = ticket.status === "closed" && ticket.resolutionType ? ticket.resolutionType : ticket.status;
  return `status.${name}` as MessageKey;
}

/**
 * The conversation's state as the player reads it. The status says where the ticket is in the
 * agents' work; while it is open and the last message is an agent's, the player is the one
 * expected to answer, whatever the status ("Waiting for an agent" under the agent's question
 * would be wrong).
 */
export function playerStatusKey(ticket: { status: string; resolutionType: string | null }, lastFrom: "player" | "agent" | null | undefined): MessageKey {
  return ticket.status !== "closed" && lastFrom === "agent" ? "status.waiting" : statusKey(ticket);
}

export function HomeView() {
  const { api, session, locale, fail } = useApp();
  const { t } = locale;
  const heading = usePageHeading(`${t("app.title")} – ${session.game.name}`);
  // A text in another language than the page's says which (screen readers, fonts, hyphenation).
  const other = (language: string | undefined) => (language && language !== locale.language ? language : undefined);
  const [tickets, setTickets] = useState<PlayerTicket[] | null>(null);
  // Bumped when the player proves the email: the list then holds the earlier conversations too.
  const [listing, setListing] = useState(0);
  const [search, setSearch] = useState<SearchState>(null);

  useEffect(() => {
    api.tickets().then(setTickets, (error: unknown) => {
      setTickets([]);
      fail(error);
    });
  }, [api, listing]);

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {t("app.title")}
      </h1>
      {session.announcement && (
        <section class="announcement" aria-labelledby="announcement-title">
          <h2 id="announcement-title">{t("home.announcement")}</h2>
          <p class="pre-line" dir="auto" lang={other(session.announcement.language)}>
            {session.announcement.text}
          </p>
          {session.announcement.details && (
            <p class="pre-line" dir="auto" lang={other(session.announcement.detailsLanguage ?? session.announcement.language)}>
              {session.announcement.details}
            </p>
          )}
        </section>
      )}
      <p>
        <a class="button primary" href={href.contact}>
          {t("home.contact")}
        </a>
      </p>
      {session.resources.length > 0 && <HelpSearch onChange={setSearch} />}
      {search !== null && <HelpSearchResults state={search} />}
      <section aria-labelledby="resources-title" hidden={search !== null}>
        <h2 id="resources-title">{t("home.resources")}</h2>
        {session.resources.length === 0 ? (
          <p>{t("home.noResources")}</p>
        ) : (
          sectionsOf(session.resources).map(({ section, resources }) => (
            <Fragment key={section ?? ""}>
              {section !== null && <h3 class="resource-section">{section}</h3>}
              <ul class="list">
                {resources.map((resource) => (
                  <li key={resource.key}>
                    <a href={href.resource(resource.key)} lang={other(resource.language)} dir={resource.language && other(resource.language) ? directionOf(resource.language) : undefined}>
                      {resource.title}
                    </a>
                  </li>
                ))}
              </ul>
            </Fragment>
          ))
        )}
      </section>
      <section aria-labelledby="tickets-title">
        <h2 id="tickets-title">{t("home.tickets")}</h2>
        {tickets === null ? (
          <p role="status">{t("app.loading")}</p>
        ) : tickets.length === 0 ? (
          <p>{t("home.noTickets")}</p>
        ) : (
          <ul class="list conversations">
            {tickets.map((ticket) => (
              <li key={ticket.id} class={ticket.unread > 0 ? "unread" : undefined}>
                <p class="conversation-head">
                  <a href={href.ticket(ticket.id)}>
                    {t("ticket.label", { id: ticket.runningId })}
                    {ticket.unread > 0 && <span class="unread-count"> {t("home.unread", { n: ticket.unread })}</span>}
                  </a>{" "}
                  <span class="status">{t(playerStatusKey(ticket, ticket.lastMessage?.from))}</span>{" "}
                  <time class="muted" dateTime={ticket.lastActivityAt ?? ticket.createdAt}>
                    {formatMoment(locale, ticket.lastActivityAt ?? ticket.createdAt)}
                  </time>
                </p>
                {ticket.lastMessage && (
                  <p class="preview">
                    <span class="muted">{ticket.lastMessage.from === "agent" ? t("chat.agent") : t("chat.you")}: </span>
                    <bdi>{ticket.lastMessage.preview || t("chat.attachment")}</bdi>
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
        <VerifyEmail onVerified={() => setListing((n) => n + 1)} />
      </section>
    </>
  );
}

/**
 * The help articles grouped by section, in the order their admins gave them: a section where its
 * first article is, articles without one in a group without a heading.
 */
export function sectionsOf(resources: readonly ResourceSummary[]): { section: string | null; resources: ResourceSummary[] }[] {
  const groups: { section: string | null; resources: ResourceSummary[] }[] = [];
  for (const resource of resources) {
    const section = resource.section?.trim() ? resource.section.trim() : null;
    const group = groups.find((candidate) => candidate.section === section);
    if (group) group.resources.push(resource);
    else groups.push({ section, resources: [resource] });
  }
  return groups;
}
