// A conversation as a chat: the player's and the agents' messages with their attachments
// (never private notes: the API does not send them), live updates without a reload, the
// answer box while the ticket is open, the rating of a resolved ticket, and "start a new one"
// once it is closed. All text is rendered as text.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, type PlayerTicket, type TicketEvent } from "../api.ts";
import { BackHome, href, useApp, usePageHeading } from "../app-context.tsx";
import { formatMoment } from "../i18n.ts";
import { followTicket } from "../live-events.ts";
import { isConnectionFailure, useOutbox, type Outbox } from "../outbox.ts";
import type { MessageKey } from "../messages/en.ts";
import { AttachmentView, FilePicker, useFiles } from "./files.tsx";
import { playerStatusKey, statusKey } from "./home.tsx";

interface TicketState {
  status: string;
  resolutionType: string | null;
  csatScore: number | null;
}

/** The ticket's state after `events` (status changes, the end, a rating), from `initial`. */
export function stateAfter(initial: TicketState, events: TicketEvent[]): TicketState {
  let state = { ...initial };
  for (const event of events) {
    if (event.type === "STATUS_CHANGED") {
      const to = (event.to ?? event.status ?? (event.data as { to?: string } | undefined)?.to) as string | undefined;
      if (to) state = { ...state, status: to, resolutionType: to === "closed" ? state.resolutionType : null };
    } else if (event.type === "END" && event.resolutionType) {
      state = { ...state, status: "closed", resolutionType: event.resolutionType };
    } else if (event.type === "CSAT" && typeof event.score === "number") {
      state = { ...state, csatScore: event.score };
    }
  }
  return state;
}

const byTime = (a: TicketEvent, b: TicketEvent) => a.createdAt.localeCompare(b.createdAt);

export function ConversationView({ ticketId }: { ticketId: string }) {
  const { api, locale, fail } = useApp();
  const { t } = locale;
  const [ticket, setTicket] = useState<PlayerTicket | null | "missing">(null);
  const [events, setEvents] = useState<Map<string, TicketEvent>>(new Map());
  // The live region keeps the last few announcements as separate nodes, so a status change
  // right after a message does not cut the message short for a screen reader.
  const [announcements, setAnnouncements] = useState<{ id: number; text: string }[]>([]);
  const setAnnouncement = (text: string) => setAnnouncements((list) => [...list, { id: (list.at(-1)?.id ?? 0) + 1, text }].slice(-3));
  const initialIds = useRef<Set<string> | null>(null);
  const [typing, setTyping] = useState<string[]>([]);
  // Whether the page reaches the API: the browser's word, and the conversation's stream or polls.
  const [offline, setOffline] = useState(!navigator.onLine);
  const [connection, setConnection] = useState<"live" | "reconnecting">("live");
  useEffect(() => {
    const on = () => setOffline(false);
    const off = () => setOffline(true);
    addEventListener("online", on);
    addEventListener("offline", off);
    return () => {
      removeEventListener("online", on);
      removeEventListener("offline", off);
    };
  }, []);
  const title = ticket === "missing" ? t("chat.notFound") : ticket ? t("ticket.label", { id: ticket.runningId }) : t("app.loading");
  const heading = usePageHeading(title);

  // The listed state (status, resolution, rating) is read again whenever new events arrive, so
  // the status is right even for changes that have no event of their own in the conversation.
  const reloadTicket = () =>
    api.tickets().then(
      (tickets) => setTicket(tickets.find((item) => item.id === ticketId) ?? "missing"),
      (error: unknown) => fail(error),
    );

  useEffect(() => {
    void reloadTicket();
  }, [api, ticketId]);

  useEffect(() => {
    if (ticket === null || ticket === "missing") return;
    const live = followTicket(api, ticketId, {
      onStatus(status) {
        setTicket((listed) => {
          if (!listed || listed === "missing") return listed;
          const changed = listed.status !== status.status || listed.resolutionType !== status.resolutionType;
          if (changed && initialIds.current !== null) setAnnouncement(t("chat.statusChanged", { status: t(statusKey(status)) }));
          return { ...listed, ...status };
        });
      },
      onEvents(incoming) {
        setEvents((current) => {
          const fresh = incoming.filter((event) => !current.has(event.id) && event.type !== "PRIVATE_NOTE");
          if (fresh.length === 0) return current;
          // The first read is the history; only later agent messages and status changes are announced.
          if (initialIds.current === null) initialIds.current = new Set(fresh.map((event) => event.id));
          else {
            const spoken = fresh.map((event) => spokenText(event, t)).filter(Boolean);
            if (spoken.length > 0) setAnnouncement(spoken.join(" "));
          }
          const next = new Map(current);
          for (const event of fresh) next.set(event.id, event);
          if (current.size > 0) {
            // Live changes show at once; the list read that follows has the last word.
            setTicket((listed) => (listed && listed !== "missing" ? { ...listed, ...stateAfter(listed, fresh) } : listed));
            setTimeout(() => void reloadTicket(), 0);
          }
          return next;
        });
      },
      onGone(error) {
        if (error instanceof ApiError && error.status === 404) setTicket("missing");
        else fail(error);
      },
      onTyping: setTyping,
      onConnection(state) {
        setConnection(state);
        if (state === "live") void outbox.flush();
      },
    });
    return () => live.stop();
  }, [api, ticketId, ticket === null || ticket === "missing"]);

  const ordered = useMemo(() => [...events.values()].sort(byTime), [events]);
  const state = ticket && ticket !== "missing" ? ticket : null;
  const closed = state?.status === "closed";
  const newest = useNewestInView(ordered);
  useReadMark(ticketId, ordered);
  const outbox = useOutbox(
    api,
    ticketId,
    async () => {
      newest.follow();
      await refresh();
    },
    fail,
  );
  // A message that starts to wait is the player's own: it comes into view like a sent one.
  const waiting = outbox.queue.length;
  useEffect(() => {
    if (waiting > 0) newest.show();
  }, [waiting]);
  // Inside the answer box while there is one: on a phone the box stays at the screen's foot, and
  // the cue sits just above it.
  const cue = newest.unseen > 0 && (
    <button type="button" class="button primary new-messages" onClick={newest.show}>
      {t("chat.newBelow", { n: newest.unseen })}
    </button>
  );

  async function refresh() {
    try {
      const all = await api.events(ticketId);
      setEvents((current) => {
        const next = new Map(current);
        for (const event of all) if (event.type !== "PRIVATE_NOTE") next.set(event.id, event);
        return next;
      });
      await reloadTicket();
    } catch (error) {
      fail(error);
    }
  }

  return (
    <>
      <BackHome />
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {state && (
        <p class="status" id="ticket-status">
          {t(playerStatusKey(state, lastFrom(ordered)))}
        </p>
      )}
      {state && !closed && (offline || connection === "reconnecting") && (
        <p class="connection" role="status">
          {offline ? t("chat.offline") : t("chat.reconnecting")}
        </p>
      )}
      <div class="visually-hidden" id="live" aria-live="polite" aria-relevant="additions">
        {announcements.map((item) => (
          <p key={item.id}>{item.text}</p>
        ))}
      </div>
      {ticket && ticket !== "missing" && (
        <>
          <ol class="chat" aria-label={t("chat.messages")}>
            {ordered.map((event, index) => (
              <ChatItem key={event.id} event={event} ticketId={ticketId} continued={continuesGroup(ordered[index - 1], event)} />
            ))}
          </ol>
          {outbox.queue.length > 0 && (
            <ol class="chat pending" aria-label={t("chat.waitingToSend")}>
              {outbox.queue.map((item) => (
                <li key={item.id} class="bubble mine pending">
                  <p class="who">
                    <span>{t("chat.you")}</span> <span class="muted">{t("chat.notSentYet")}</span>
                  </p>
                  <p class="text" dir="auto">
                    {item.text}
                  </p>
                </li>
              ))}
            </ol>
          )}
          {/* Not announced: a screen reader hears the message itself when it comes. */}
          {!closed && typing.length > 0 && (
            <p class="typing muted" aria-hidden="true">
              <span class="dots">
                <span />
                <span />
                <span />
              </span>{" "}
              {typing.length === 1 ? t("chat.typingOne", { name: typing[0]! }) : t("chat.typingMany", { names: new Intl.ListFormat(locale.language, { type: "conjunction" }).format(typing) })}
            </p>
          )}
          {closed ? (
            <>
              {cue}
              <ClosedPanel ticketId={ticketId} state={state!} onRated={refresh} />
            </>
          ) : (
            <Composer
              ticketId={ticketId}
              outbox={outbox}
              onSent={async () => {
                newest.follow();
                await refresh();
              }}
            >
              {cue}
            </Composer>
          )}
        </>
      )}
    </>
  );
}

/**
 * Tells the service the player has read the conversation: when it opens, and when an agent
 * message arrives while the page is in view (one arriving in a hidden tab is read when the tab
 * shows again). The home list's unread counts follow. A failed mark is not the player's
 * problem: it is tried again with the next message.
 */
function useReadMark(ticketId: string, ordered: readonly TicketEvent[]): void {
  const { api } = useApp();
  const agentMessages = ordered.filter((event) => event.type === "AGENT_MESSAGE").length;
  const marked = useRef(-1);
  useEffect(() => {
    const mark = () => {
      if (document.visibilityState !== "visible" || marked.current === agentMessages) return;
      marked.current = agentMessages;
      api.markRead(ticketId).catch(() => {
        marked.current = -1;
      });
    };
    if (ordered.length > 0) mark();
    document.addEventListener("visibilitychange", mark);
    return () => document.removeEventListener("visibilitychange", mark);
  }, [api, ticketId, agentMessages, ordered.length > 0]);
}

/** Who wrote the conversation's last message (a form the player sent counts as the player's). */
function lastFrom(events: readonly TicketEvent[]): "player" | "agent" | null {
  const last = events.findLast((event) => event.type === "AGENT_MESSAGE" || event.type === "PLAYER_MESSAGE" || event.type === "COLLECTOR_RESULT");
  return last === undefined ? null : last.type === "AGENT_MESSAGE" ? "agent" : "player";
}

const NEAR_BOTTOM_PX = 120;
const atBottom = () => innerHeight + scrollY >= document.documentElement.scrollHeight - NEAR_BOTTOM_PX;
const toBottom = () => scrollTo({ top: document.documentElement.scrollHeight });

/**
 * Keeps the newest message in view the way chat apps do: the conversation opens at its newest
 * message; a message that arrives while the player is at the bottom scrolls into view; one that
 * arrives while the player reads further up is counted on a "new messages" button instead,
 * which scrolls down. The player's own message always scrolls into view (`follow`).
 */
function useNewestInView(ordered: readonly TicketEvent[]): { unseen: number; show(): void; follow(): void } {
  const [unseen, setUnseen] = useState(0);
  const seen = useRef(0);
  const following = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      following.current = atBottom();
      if (following.current) setUnseen(0);
    };
    addEventListener("scroll", onScroll, { passive: true });
    return () => removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    const arrived = ordered.length - seen.current;
    if (arrived <= 0) return;
    const first = seen.current === 0;
    seen.current = ordered.length;
    if (first || following.current) toBottom();
    else setUnseen((count) => count + arrived);
  }, [ordered.length]);
  return {
    unseen,
    show() {
      setUnseen(0);
      following.current = true;
      toBottom();
    },
    follow() {
      following.current = true;
    },
  };
}

/** Up to two letters of a name for its avatar: the first of its first and last words ("Mia Chen" → "MC", "Ōta" → "Ō"). */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = (word: string | undefined) => (word === undefined ? "" : ([...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(word)][0]?.segment ?? ""));
  return (first(words[0]) + (words.length > 1 ? first(words.at(-1)) : "")).toLocaleUpperCase();
}

function spokenText(event: TicketEvent, t: ReturnType<typeof useApp>["locale"]["t"]): string {
  if (event.type === "AGENT_MESSAGE") return t("chat.newMessage", { text: event.message ?? "" });
  if (event.type === "STATUS_CHANGED" || event.type === "END") {
    const state = stateAfter({ status: "new", resolutionType: null, csatScore: null }, [event]);
    return t("chat.statusChanged", { status: t(statusKey(state)) });
  }
  return "";
}

/** How far apart two messages of one writer may be to show as one group. */
const GROUP_WITHIN_MS = 5 * 60_000;

/**
 * Whether `event` continues the group of `previous`, as chat apps show it: both messages of the
 * same writer (the player, or the same agent), within GROUP_WITHIN_MS, neither copied in by a
 * merge. A continued message shows no name and time of its own (screen readers still hear them).
 */
export function continuesGroup(previous: TicketEvent | undefined, event: TicketEvent): boolean {
  if (previous === undefined || previous.type !== event.type || (event.type !== "PLAYER_MESSAGE" && event.type !== "AGENT_MESSAGE")) return false;
  if (previous.mergedFrom !== undefined || event.mergedFrom !== undefined) return false;
  if (event.type === "AGENT_MESSAGE" && previous.agent?.displayName !== event.agent?.displayName) return false;
  const gap = Date.parse(event.createdAt) - Date.parse(previous.createdAt);
  return gap >= 0 && gap <= GROUP_WITHIN_MS;
}

function ChatItem({ event, ticketId, continued = false }: { event: TicketEvent; ticketId: string; continued?: boolean }) {
  const { locale } = useApp();
  const { t } = locale;
  // A message copied from another request of the player (an agent merged it into this one)
  // shows when it was written there, and which request it came from.
  const mergedFrom = event.mergedFrom as { runningId: number; createdAt: string } | undefined;
  const writtenAt = mergedFrom?.createdAt ?? event.createdAt;
  const time = (
    <time class="muted" dateTime={writtenAt}>
      {formatMoment(locale, writtenAt)}
    </time>
  );
  const origin = mergedFrom && <p class="merged-from muted">{t("chat.mergedFrom", { number: mergedFrom.runningId })}</p>;
  if (event.type === "PLAYER_MESSAGE" || event.type === "AGENT_MESSAGE") {
    const mine = event.type === "PLAYER_MESSAGE";
    const agentName = mine ? undefined : event.agent?.displayName.trim() || undefined;
    return (
      <li class={`bubble ${mine ? "mine" : "theirs"}${continued ? " continued" : ""}`}>
        {origin}
        <p class={continued ? "who visually-hidden" : "who"}>
          {agentName && (
            <span class="avatar" aria-hidden="true">
              {initialsOf(agentName)}
            </span>
          )}
          <span>{mine ? t("chat.you") : agentName ? <bdi>{agentName}</bdi> : t("chat.agent")}</span> {time}
        </p>
        {event.message && (
          <p class="text" dir="auto">
            {event.message}
          </p>
        )}
        {(event.attachments ?? []).map((attachment) => (
          <AttachmentView key={attachment.id} ticketId={ticketId} attachment={attachment} />
        ))}
      </li>
    );
  }
  if (event.type === "COLLECTOR_RESULT") {
    return (
      <li class="bubble mine form">
        {origin}
        <p class="who">
          <span>{t("chat.form", { title: event.title ?? "" })}</span> {time}
        </p>
        <dl>
          {(event.fields ?? []).map((field, index) => (
            <div key={index}>
              {/* Labels and answers keep the page's alignment; each text keeps its own direction. */}
              <dt>
                <bdi>{field.label}</bdi>
              </dt>
              <dd>
                {field.type === "FILE" ? (
                  (field.attachments ?? []).map((attachment) => <AttachmentView key={attachment.id} ticketId={ticketId} attachment={attachment} />)
                ) : (
                  <bdi>
                    {typeof field.value === "boolean"
                      ? field.value
                        ? t("chat.yes")
                        : t("chat.no")
                      : Array.isArray(field.value)
                        ? field.value.join(", ")
                        : String(field.value ?? "—")}
                  </bdi>
                )}
              </dd>
            </div>
          ))}
        </dl>
      </li>
    );
  }
  if (event.type === "STATUS_CHANGED" || event.type === "END") {
    const state = stateAfter({ status: "new", resolutionType: null, csatScore: null }, [event]);
    return (
      <li class="system">
        {t("chat.statusChanged", { status: t(statusKey(state) as MessageKey) })} {time}
      </li>
    );
  }
  return null;
}

function Composer({ ticketId, outbox, onSent, children }: { ticketId: string; outbox: Outbox; onSent(): Promise<void>; children?: ComponentChildren }) {
  const { api, locale, fail } = useApp();
  const { t } = locale;
  const [message, setMessage] = useState("");
  const [sending, setSending] = useState(false);
  const files = useFiles();

  async function send(event: Event) {
    event.preventDefault();
    if (!message.trim() || !files.valid()) return;
    const text = message.trim();
    // Offline, a message without files waits in the outbox and goes when the connection is back.
    const waitable = files.files.length === 0;
    if (waitable && !navigator.onLine) {
      outbox.add(text);
      setMessage("");
      return;
    }
    setSending(true);
    try {
      const attachments = await files.upload();
      await api.sendMessage(ticketId, text, attachments);
      setMessage("");
      files.clear();
      await onSent();
    } catch (error) {
      if (waitable && isConnectionFailure(error)) {
        outbox.add(text);
        setMessage("");
      } else fail(error);
    } finally {
      setSending(false);
    }
  }

  return (
    <form class="composer" onSubmit={(event) => void send(event)}>
      {children}
      <div class="field">
        <label for="reply">{t("chat.reply")}</label>
        <textarea id="reply" rows={3} maxLength={10000} required value={message} onInput={(event) => setMessage((event.currentTarget as HTMLTextAreaElement).value)} />
      </div>
      <FilePicker id="reply-files" label={t("chat.attach")} picker={files} />
      <button type="submit" class="button primary" disabled={sending}>
        {sending ? t("contact.sending") : t("chat.send")}
      </button>
    </form>
  );
}

function ClosedPanel({ ticketId, state, onRated }: { ticketId: string; state: TicketState; onRated(): Promise<void> }) {
  const { api, locale, fail } = useApp();
  const { t } = locale;
  const [score, setScore] = useState<number | null>(null);
  const [review, setReview] = useState("");
  const [sending, setSending] = useState(false);
  const [thanks, setThanks] = useState(false);
  const thanksRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (thanks) thanksRef.current?.focus();
  }, [thanks]);

  async function rate(event: Event) {
    event.preventDefault();
    if (score === null) return;
    setSending(true);
    try {
      await api.rate(ticketId, score, review.trim() || null);
      setThanks(true);
      await onRated();
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) setThanks(true);
      else fail(error);
    } finally {
      setSending(false);
    }
  }

  return (
    <section class="closed" aria-labelledby="closed-title">
      <h2 id="closed-title">{t("chat.closed")}</h2>
      {state.resolutionType === "resolved" &&
        (thanks ? (
          <p ref={thanksRef} tabIndex={-1} role="status">
            {t("csat.thanks")}
          </p>
        ) : state.csatScore !== null ? (
          <p>{t("csat.given", { n: state.csatScore })}</p>
        ) : (
          <form class="csat" onSubmit={(event) => void rate(event)}>
            <fieldset>
              <legend>{t("csat.title")}</legend>
              <div class="scores">
                {[1, 2, 3, 4, 5].map((n) => (
                  <label key={n} class="score">
                    <input type="radio" name="csat" value={n} checked={score === n} onChange={() => setScore(n)} />
                    <span aria-hidden="true">{n} ★</span>
                    <span class="visually-hidden">{t("csat.score", { n })}</span>
                  </label>
                ))}
              </div>
            </fieldset>
            <div class="field">
              <label for="review">
                {t("csat.review")}
                <span class="muted"> {t("contact.optional")}</span>
              </label>
              <textarea id="review" rows={3} maxLength={10000} value={review} onInput={(event) => setReview((event.currentTarget as HTMLTextAreaElement).value)} />
            </div>
            <button type="submit" class="button primary" disabled={sending || score === null}>
              {t("csat.send")}
            </button>
          </form>
        ))}
      <p>
        <a class="button" href={href.contact}>
          {t("chat.startNew")}
        </a>
      </p>
    </section>
  );
}
