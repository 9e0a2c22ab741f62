// One ticket: the conversation (private notes set apart, images inline), the composer (reply to
// the player or private note, with files), the actions on it, its fields, the player panel, and
// who else is on it. The page says
// "viewing" while it is open and "typing" while its user writes, so the other agents see it;
// it reads the ticket again when the live stream says the ticket changed.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, call, type AssignmentChange, type CannedActions, type ConversationItem, type TicketCannedResponse, type TicketSla, type TicketView } from "../api.ts";
import { SlaPanel } from "../components/sla-panel.tsx";
import { ComposerFilesField, useComposerFiles } from "../components/composer-files.tsx";
import { EmailDeliveryLine, HeldMails } from "../components/email-delivery.tsx";
import { ConversationFiles } from "../components/conversation-files.tsx";
import { Alert } from "../components/form.tsx";
import { AppLayout, Link, PageTitle } from "../components/layout.tsx";
import { MergeButton } from "../components/merge-dialog.tsx";
import { TicketFields } from "../components/ticket-fields.tsx";
import { formatDateTime } from "../format.ts";
import { t } from "../i18n.ts";
import { lastChange, presence, reloads } from "../live.ts";
import { assignable, colleagues, games, tagsFor } from "../directory.ts";
import { TriageSuggestions, type TriagePrediction } from "../components/triage-suggestions.tsx";
import { me } from "../session.ts";
import { statusName } from "./inbox.tsx";
import { dialogOpen } from "../components/shortcuts-dialog.tsx";
import { actionText, outcomeText, type RuleRun } from "./settings/rules.tsx";

const VIEWING_EVERY_MS = 10_000;
/** How often, and how many times, an email ticket is read again while an agent message's mail is not sent yet. */
const MAIL_CHECK_EVERY_MS = 1500;
const MAIL_CHECKS = 20;
const TYPING_EVERY_MS = 3_000;

type Mode = "reply" | "note";

/** The names of the rules that ran on the ticket, by id (from the ticket's rule runs). */
type RuleNames = ReadonlyMap<string, string>;

/** A system actor's name: a rule (`rule:<ruleId>`) by its name when known, else the system. */
function systemName(id: string | undefined, rules: RuleNames): string {
  if (id?.startsWith("rule:")) {
    const name = rules.get(id.slice("rule:".length));
    return name === undefined ? t("author.someRule") : t("author.rule", { name });
  }
  return t("author.system");
}

function authorName(item: ConversationItem, userId: string | undefined, rules: RuleNames): string {
  const author = item.author;
  if (!author) return "";
  if (author.type === "player") return t("author.player");
  if (author.type === "system") return systemName(author.id ?? undefined, rules);
  if (author.type === "api_key") return t("author.integration");
  if (author.id === userId) return t("author.you");
  return (author.id && colleagues.value.get(author.id)?.displayName) || t("author.agent");
}

/** A user's name as the history shows it: "you" for the signed-in user (as the one assigned, or as the one who did it). */
function userName(id: string, userId: string | undefined, role: "to" | "by"): string {
  if (id === userId) return role === "to" ? t("history.you") : t("history.byYou");
  return colleagues.value.get(id)?.displayName ?? t("author.agent");
}

/** One line of the assignment history: "Assigned to Mia by routing", "Unassigned by you". */
export function assignmentLine(change: AssignmentChange, userId: string | undefined, rules: RuleNames = new Map()): string {
  const by = change.by.type === "system"
    ? change.by.id === "routing" ? t("history.byRouting") : systemName(change.by.id ?? undefined, rules)
    : change.by.type === "api_key"
      ? t("author.integration")
      : change.by.type === "user" && change.by.id
        ? userName(change.by.id, userId, "by")
        : t("author.system");
  if (change.toUserId === null) return t("history.unassigned", { by });
  return t("history.assigned", { name: userName(change.toUserId, userId, "to"), by });
}

/** The actions a canned response adds to its reply, in the order the ticket takes them. */
export function cannedActions(actions: CannedActions): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  if (actions.addTags.length > 0) list.push({ type: "addTags", tagNames: actions.addTags });
  if (actions.status === "waiting") list.push({ type: "setStatus", status: "waiting" });
  if (actions.status === "on_hold") list.push({ type: "setOnHold", onHold: true });
  if (actions.resolve) list.push({ type: "resolveTicket" });
  return list;
}

function describeActions(actions: CannedActions): string {
  const parts: string[] = [];
  if (actions.addTags.length > 0) parts.push(t("composer.cannedTags", { tags: actions.addTags.join(", ") }));
  if (actions.status) parts.push(t("composer.cannedStatus", { status: t(`status.${actions.status}` as never) }));
  if (actions.resolve) parts.push(t("composer.cannedResolve"));
  return parts.join(", ");
}

/** The user looked at the ticket: lists stop showing it as unread. */
function markRead(ticketId: string): void {
  void call("POST", `/tickets/${ticketId}/read`).catch(() => undefined);
}

function announce(ticketId: string, state: "viewing" | "typing" | "left"): void {
  void call("POST", `/tickets/${ticketId}/presence`, { state }).catch(() => undefined);
}

export function TicketPage({ ticketId }: { ticketId: string }) {
  const [view, setView] = useState<TicketView | null>();
  const [assignments, setAssignments] = useState<AssignmentChange[]>([]);
  const [predictions, setPredictions] = useState<TriagePrediction[]>([]);
  const [ruleRuns, setRuleRuns] = useState<RuleRun[]>([]);
  const [sla, setSla] = useState<TicketSla>();
  const [error, setError] = useState<string>();
  const [mode, setMode] = useState<Mode>("reply");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [canned, setCanned] = useState<TicketCannedResponse[]>([]);
  const [chosen, setChosen] = useState<TicketCannedResponse>();
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [composerProblem, setComposerProblem] = useState<string>();
  const [dragging, setDragging] = useState(false);
  const files = useComposerFiles(ticketId);
  // What the composer said about its files is stale once they change.
  const fileStates = files.files.map((file) => file.state).join();
  useEffect(() => setComposerProblem(undefined), [fileStates]);
  const lastTyping = useRef(0);
  const composer = useRef<HTMLTextAreaElement>(null);
  const composerWanted = useRef(false);
  useLayoutEffect(() => {
    if (composerWanted.current && composer.current) {
      composerWanted.current = false;
      composer.current.focus();
    }
  });
  const userId = me.value?.user.id;
  // Newest last, so that a renamed rule goes by its latest name.
  const ruleNames: RuleNames = new Map([...ruleRuns].reverse().map((run) => [run.ruleId, run.ruleName]));
  const change = lastChange.value;
  const reload = reloads.value;

  async function load() {
    try {
      const { body } = await call<TicketView>("GET", `/tickets/${ticketId}`);
      setView(body);
      void call<{ changes: AssignmentChange[] }>("GET", `/tickets/${ticketId}/assignments`).then(
        ({ body: history }) => setAssignments(history.changes),
        () => undefined,
      );
      void call<{ predictions: TriagePrediction[] }>("GET", `/tickets/${ticketId}/triage`).then(
        ({ body: triage }) => setPredictions(triage.predictions),
        () => undefined,
      );
      // The rules that ran on the ticket, with their names (everyone who sees the ticket reads them).
      void call<{ runs: RuleRun[] }>("GET", `/tickets/${ticketId}/rule-runs`).then(
        ({ body: history }) => setRuleRuns(history.runs),
        () => undefined,
      );
      void call<TicketSla>("GET", `/tickets/${ticketId}/sla`).then(
        ({ body: clocks }) => setSla(clocks),
        () => undefined,
      );
    } catch (caught) {
      setView(caught instanceof ApiError && caught.status === 404 ? null : view);
      if (!(caught instanceof ApiError && caught.status === 404)) setError(t("app.error"));
    }
  }

  useEffect(() => {
    setView(undefined);
    setChosen(undefined);
    void load();
    markRead(ticketId);
    call<{ responses: TicketCannedResponse[] }>("GET", `/tickets/${ticketId}/canned-responses`).then(
      ({ body }) => setCanned(body.responses),
      () => setCanned([]),
    );
    announce(ticketId, "viewing");
    const viewing = setInterval(() => announce(ticketId, "viewing"), VIEWING_EVERY_MS);
    return () => {
      clearInterval(viewing);
      announce(ticketId, "left");
    };
  }, [ticketId]);

  useEffect(() => {
    // A merge changes the target's conversation too: its change names the target.
    if ((change && (change.ticketId === ticketId || change.targetTicketId === ticketId)) || reload > 0) void load();
    // A player message that arrives while the ticket is open is read at once.
    if (change && change.ticketId === ticketId && change.messageType === "PLAYER_MESSAGE") markRead(ticketId);
  }, [change, reload]);

  // The mail of an agent's message on an email ticket goes out a moment after the message (the
  // email service sends it, no ticket change follows): while one is not sent yet, the ticket is
  // read again shortly, a bounded number of times.
  const mailChecks = useRef(0);
  useEffect(() => {
    mailChecks.current = 0;
  }, [ticketId]);
  useEffect(() => {
    if (!view || !view.ticket.channels.includes("email")) return;
    const pending = view.conversation.some((item) => item.event.type === "AGENT_MESSAGE" && (item.emailDelivery === undefined || item.emailDelivery.status === "queued"));
    if (!pending || mailChecks.current >= MAIL_CHECKS) return;
    mailChecks.current++;
    const timer = setTimeout(() => void load(), MAIL_CHECK_EVERY_MS);
    return () => clearTimeout(timer);
  }, [view]);

  // r: reply, n: private note, e: resolve (when focus is not in a field).
  const resolveRef = useRef<() => void>(() => undefined);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest("input, textarea, select") || dialogOpen() || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "r" || event.key === "n") {
        event.preventDefault();
        setMode(event.key === "r" ? "reply" : "note");
        // Before the ticket is loaded there is no composer yet: it takes the focus when it shows.
        if (composer.current) composer.current.focus();
        else composerWanted.current = true;
      } else if (event.key === "e") {
        event.preventDefault();
        resolveRef.current();
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  async function cancelDeletion() {
    setBusy(true);
    setError(undefined);
    try {
      await call("DELETE", `/tickets/${ticketId}/player/scheduled-deletion`);
      setConfirmCancel(false);
      await load();
    } catch {
      setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  /** "Unassign for automatic assignment": routing gives the ticket to someone else who can take it. */
  async function requeue() {
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", `/tickets/${ticketId}/requeue`);
      await load();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 409 ? t("ticket.closedAlready") : t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  /** One click on a suggestion: the tag or value is applied as this agent's change, or the suggestion goes away. */
  async function decide(prediction: TriagePrediction, decision: "apply" | "dismiss") {
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", `/tickets/${ticketId}/triage/${prediction.id}/${decision}`);
      // The suggestion goes at once, not after the reload: the tag it added must not show beside it.
      setPredictions((current) => current.map((p) => (p.id === prediction.id ? { ...p, state: decision === "apply" ? "applied" : "dismissed" } : p)));
      await load();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 409 ? t("triage.decided") : t("app.error"));
      await load();
    } finally {
      setBusy(false);
    }
  }

  async function act(actions: Record<string, unknown>[], after?: () => void) {
    setBusy(true);
    setError(undefined);
    try {
      await call("POST", `/tickets/${ticketId}/actions`, { actions });
      after?.();
      await load();
    } catch (caught) {
      const refusedFile = caught instanceof ApiError && caught.paths.some((path) => /^\/actions\/\d+\/attachments/.test(path));
      setError(caught instanceof ApiError && caught.status === 409 ? t("ticket.closedAlready") : refusedFile ? t("files.refused") : t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  function onType(value: string) {
    setText(value);
    if (Date.now() - lastTyping.current > TYPING_EVERY_MS) {
      lastTyping.current = Date.now();
      announce(ticketId, "typing");
    }
  }

  if (view === undefined) {
    return (
      <AppLayout wide>
        <p role="status">{t("app.loading")}</p>
      </AppLayout>
    );
  }
  if (view === null) {
    return (
      <AppLayout wide>
        <PageTitle>{t("ticket.notFound")}</PageTitle>
        <p>{t("ticket.notFoundText")}</p>
        <Link to="/views/mine">{t("notFound.home")}</Link>
      </AppLayout>
    );
  }

  const { ticket } = view;
  const closed = ticket.status === "closed";
  const routed = games.value.some((game) => game.id === ticket.gameId && game.routingEnabled);
  resolveRef.current = () => {
    if (!closed && !busy) void act([{ type: "resolveTicket" }]);
  };
  const others = presence.value.get(ticketId)?.agents.filter((agent) => agent.userId !== userId) ?? [];
  const player = view.player.record;
  const mergedInto = ticket.resolutionType === "merged" && ticket.followUpTicketId !== null ? ticket.followUpTicketId : undefined;
  const mergedIntoNumber = view.player.otherTickets.find((other) => other.id === mergedInto)?.runningId;
  const known = new Map(view.attachments.map((attachment) => [attachment.id, attachment]));

  return (
    <AppLayout wide>
      <div class="ticket-layout">
        <article class="conversation-pane" aria-labelledby="ticket-title">
          <p class="back">
            <Link to="/views/mine">{t("ticket.back")}</Link>
          </p>
          <PageTitle id="ticket-title">{t("ticket.title", { number: ticket.runningId, player: ticket.playerName ?? ticket.email ?? t("ticket.unknownPlayer") })}</PageTitle>
          <p class="ticket-facts">
            <span class={`status status-${ticket.status}`}>{statusName(ticket.status)}</span>
            {ticket.resolutionType && <span> · {t(`resolution.${ticket.resolutionType}` as never)}</span>}
            <span> · {ticket.language.toUpperCase()}</span>
            <span> · {t("ticket.tier", { tier: ticket.metadata.playerTier ?? 1 })}</span>
            <span>
              {" · "}
              {view.assigneeId === null
                ? t("ticket.unassigned")
                : view.assigneeId === userId
                  ? t("ticket.assignedToYou")
                  : colleagues.value.has(view.assigneeId)
                    ? t("ticket.assignedTo", { name: colleagues.value.get(view.assigneeId)!.displayName })
                    : t("ticket.assignedToOther")}
            </span>
          </p>
          <div class="presence-line" role="status" aria-live="polite">
            {others.map((agent) => (agent.state === "typing" ? t("presence.typing", { name: agent.displayName }) : t("presence.viewing", { name: agent.displayName }))).join(" · ")}
          </div>
          {mergedInto !== undefined && (
            <p class="merged-banner" role="note">
              {t("merge.mergedInto")}{" "}
              <Link to={`/tickets/${mergedInto}`}>{mergedIntoNumber !== undefined ? `#${mergedIntoNumber}` : t("merge.theTarget")}</Link>
            </p>
          )}
          {error && <Alert>{error}</Alert>}
          <ol class="conversation" aria-label={t("ticket.conversation")}>
            {view.conversation.map((item) => (
              <li key={item.event.id} class={`event event-${item.event.type.toLowerCase()}${item.event.mergedFrom ? " event-merged" : ""}`}>
                {item.event.mergedFrom && (
                  <p class="merged-from">
                    {t("merge.mergedFrom")} <Link to={`/tickets/${item.event.mergedFrom.ticketId}`}>#{item.event.mergedFrom.runningId}</Link>
                    <time dateTime={item.event.mergedFrom.createdAt}> · {formatDateTime(item.event.mergedFrom.createdAt)}</time>
                  </p>
                )}
                <p class="event-head">
                  <strong>{item.event.type === "PRIVATE_NOTE" ? t("event.note", { author: authorName(item, userId, ruleNames) }) : authorName(item, userId, ruleNames) || t(`event.${item.event.type}` as never)}</strong>
                  <time dateTime={item.event.createdAt}> {formatDateTime(item.event.createdAt)}</time>
                </p>
                {item.event.message ? <p class="text">{item.event.message}</p> : null}
                {item.event.type === "CSAT" && <p>{t("event.csat", { score: item.event.score ?? 0 })}{item.event.review ? ` “${item.event.review}”` : ""}</p>}
                {item.event.type === "END" && <p class="muted">{t("event.end")}</p>}
                {item.event.fields && (
                  <dl class="answers">
                    {item.event.fields.map((field) => (
                      <>
                        <dt>{field.label}</dt>
                        <dd>
                          {field.attachments ? (
                            field.attachments.length > 0 ? <ConversationFiles ticketId={ticketId} attachments={field.attachments} known={known} /> : t("event.files", { count: 0 })
                          ) : (
                            String(field.value ?? "")
                          )}
                        </dd>
                      </>
                    ))}
                  </dl>
                )}
                {item.event.attachments && item.event.attachments.length > 0 && (
                  <ConversationFiles ticketId={ticketId} attachments={item.event.attachments} known={known} />
                )}
                {item.emailDelivery && <EmailDeliveryLine delivery={item.emailDelivery} />}
              </li>
            ))}
          </ol>
          <HeldMails mails={view.heldMails} />
          {!closed && (
            <form
              class={`composer composer-${mode}${dragging ? " dragging" : ""}`}
              onDragOver={(event) => {
                if (!event.dataTransfer?.types.includes("Files")) return;
                event.preventDefault();
                setDragging(true);
              }}
              onDragLeave={() => setDragging(false)}
              onDrop={(event) => {
                if (!event.dataTransfer?.files.length) return;
                event.preventDefault();
                setDragging(false);
                files.add(event.dataTransfer.files);
              }}
              onSubmit={(event) => {
                event.preventDefault();
                setComposerProblem(undefined);
                if (text.trim() === "") {
                  setComposerProblem(t("composer.empty"));
                  return;
                }
                const ready = files.ready();
                if ("waiting" in ready) {
                  setComposerProblem(ready.waiting === "uploading" ? t("files.stillUploading") : t("files.removeFailed"));
                  return;
                }
                const message = {
                  type: mode === "reply" ? "sendMessage" : "addPrivateNote",
                  message: text.trim(),
                  ...(ready.ids.length > 0 ? { attachments: ready.ids } : {}),
                };
                const extra = mode === "reply" && chosen ? cannedActions(chosen.actions) : [];
                void act([message, ...extra], () => {
                  setText("");
                  setChosen(undefined);
                  files.clear();
                });
              }}
            >
              <fieldset class="mode">
                <legend>{t("composer.mode")}</legend>
                <label>
                  <input type="radio" name="mode" checked={mode === "reply"} onChange={() => setMode("reply")} /> {t("composer.reply")}
                </label>
                <label>
                  <input type="radio" name="mode" checked={mode === "note"} onChange={() => setMode("note")} /> {t("composer.note")}
                </label>
              </fieldset>
              {mode === "reply" && canned.length > 0 && (
                <div class="canned">
                  <label for="canned-response">{t("composer.canned")}</label>
                  <select
                    id="canned-response"
                    value={chosen?.id ?? ""}
                    onChange={(event) => {
                      const picked = canned.find((response) => response.id === (event.currentTarget as HTMLSelectElement).value);
                      setChosen(picked);
                      if (picked) {
                        setText(picked.text);
                        composer.current?.focus();
                      }
                    }}
                  >
                    <option value="">{t("composer.cannedNone")}</option>
                    {canned.map((response) => (
                      <option key={response.id} value={response.id}>
                        {response.name}
                      </option>
                    ))}
                  </select>
                  {chosen && cannedActions(chosen.actions).length > 0 && (
                    <p class="hint" id="canned-actions">
                      {t("composer.cannedActions", { actions: describeActions(chosen.actions) })}
                    </p>
                  )}
                </div>
              )}
              <label for="composer-text">{mode === "reply" ? t("composer.replyLabel") : t("composer.noteLabel")}</label>
              <textarea
                id="composer-text"
                ref={composer}
                rows={4}
                value={text}
                aria-invalid={composerProblem === t("composer.empty") ? "true" : undefined}
                aria-describedby={composerProblem ? "composer-problem" : undefined}
                onInput={(event) => onType((event.currentTarget as HTMLTextAreaElement).value)}
              />
              <ComposerFilesField picker={files} disabled={busy} />
              {composerProblem && (
                <p class="field-error" id="composer-problem" role="alert">
                  {composerProblem}
                </p>
              )}
              <button type="submit" class="button primary" disabled={busy}>
                {mode === "reply" ? t("composer.send") : t("composer.addNote")}
              </button>
            </form>
          )}
        </article>
        <aside class="side-pane" aria-label={t("ticket.details")}>
          {!closed && (
          <section aria-labelledby="actions-title">
            <h2 id="actions-title">{t("ticket.actions")}</h2>
            <div class="action-buttons">
              {!closed && view.assigneeId !== userId && userId && (
                <button type="button" class="button" disabled={busy} onClick={() => void act([{ type: "assignTicket", assigneeId: userId }])}>
                  {t("action.assignToMe")}
                </button>
              )}
              {!closed && ticket.status !== "on_hold" && (
                <button type="button" class="button" disabled={busy} onClick={() => void act([{ type: "setOnHold", onHold: true }])}>
                  {t("action.hold")}
                </button>
              )}
              {!closed && ticket.status === "on_hold" && (
                <button type="button" class="button" disabled={busy} onClick={() => void act([{ type: "setOnHold", onHold: false }])}>
                  {t("action.release")}
                </button>
              )}
              {!closed && (
                <button type="button" class="button primary" disabled={busy} onClick={() => void act([{ type: "resolveTicket" }])}>
                  {t("action.resolve")}
                </button>
              )}
              {!closed && (
                <button type="button" class="button" disabled={busy} onClick={() => void act([{ type: "rejectTicket" }])}>
                  {t("action.reject")}
                </button>
              )}
              {!closed && <MergeButton ticket={ticket} candidates={view.player.otherTickets} disabled={busy} />}
              {!closed && routed && (
                <button type="button" class="button" disabled={busy} title={t("action.requeueHint")} onClick={() => void requeue()}>
                  {t("action.requeue")}
                </button>
              )}
            </div>
            <div class="assign">
              <label for="assign-to">{t("action.assignTo")}</label>
              <select
                id="assign-to"
                value={view.assigneeId ?? ""}
                disabled={busy}
                onChange={(event) => {
                  const value = (event.currentTarget as HTMLSelectElement).value;
                  void act(value === "" ? [{ type: "unassignTicket" }] : [{ type: "assignTicket", assigneeId: value }]);
                }}
              >
                <option value="">{t("ticket.unassigned")}</option>
                {assignable(ticket.gameId).map((user) => (
                  <option key={user.id} value={user.id}>
                    {user.id === userId ? t("action.me", { name: user.displayName }) : user.displayName}
                  </option>
                ))}
              </select>
            </div>
          </section>
          )}
          {!closed && (
            <TriageSuggestions
              predictions={predictions}
              gameId={ticket.gameId}
              busy={busy}
              onApply={(prediction) => void decide(prediction, "apply")}
              onDismiss={(prediction) => void decide(prediction, "dismiss")}
            />
          )}
          {ruleRuns.length > 0 && (
            <section aria-labelledby="rule-runs-title">
              <h2 id="rule-runs-title">{t("history.rulesTitle")}</h2>
              <ol class="rule-runs-list">
                {ruleRuns.map((run) => (
                  <li key={run.id}>
                    {t("history.ruleRun", { name: run.ruleName, outcome: outcomeText(run.outcome) })}
                    {run.actions.length > 0 && ` (${run.actions.map((action) => actionText(action.type)).join(", ")})`}
                    {run.error && <span class="rule-run-error">{run.error}</span>} <time dateTime={run.createdAt}>{formatDateTime(run.createdAt)}</time>
                  </li>
                ))}
              </ol>
            </section>
          )}
          {sla !== undefined && sla.policyName !== null && <SlaPanel sla={sla} />}
          {assignments.length > 0 && (
            <section aria-labelledby="history-title">
              <h2 id="history-title">{t("history.title")}</h2>
              <ol class="assignment-history">
                {assignments.map((change) => (
                  <li key={change.at + (change.toUserId ?? "")}>
                    {assignmentLine(change, userId, ruleNames)} <time dateTime={change.at}>{formatDateTime(change.at)}</time>
                  </li>
                ))}
              </ol>
            </section>
          )}
          <TicketFields ticket={ticket} busy={busy} closed={closed} onSave={(fields) => void act([{ type: "setFields", fields }])} />
          <section aria-labelledby="player-title">
            <h2 id="player-title">{t("player.title")}</h2>
            {view.player.scheduledDeletion && (
              <div class="deletion" role="note">
                <p>
                  <strong>{t("player.deletionScheduled", { date: formatDateTime(view.player.scheduledDeletion.dueAt) })}</strong>
                </p>
                {confirmCancel ? (
                  <>
                    <p>{t("player.cancelQuestion")}</p>
                    <button type="button" class="button primary" disabled={busy} onClick={() => void cancelDeletion()}>
                      {t("player.cancelConfirm")}
                    </button>{" "}
                    <button type="button" class="button" onClick={() => setConfirmCancel(false)}>
                      {t("player.cancelKeep")}
                    </button>
                  </>
                ) : (
                  <button type="button" class="button" onClick={() => setConfirmCancel(true)}>
                    {t("player.cancelDeletion")}
                  </button>
                )}
              </div>
            )}
            <dl class="facts compact">
              <dt>{t("player.name")}</dt>
              <dd>{player?.name ?? ticket.playerName ?? "—"}</dd>
              <dt>{t("player.email")}</dt>
              <dd>{player?.email ?? ticket.email ?? "—"}</dd>
              <dt>{t("player.id")}</dt>
              <dd>{player?.playerId ?? ticket.playerId ?? "—"}</dd>
              <dt>{t("player.tier")}</dt>
              <dd>{player?.tier ?? ticket.metadata.playerTier ?? 1}</dd>
              <dt>{t("player.platform")}</dt>
              <dd>{ticket.metadata.platform ?? "—"}</dd>
              {ticket.metadata.articleKey !== undefined && (
                <>
                  <dt>{t("ticket.article")}</dt>
                  <dd class="ticket-article">
                    <bdi>{ticket.metadata.articleTitle ?? ticket.metadata.articleKey}</bdi>
                    <span class="hint"> {ticket.metadata.articleKey}</span>
                  </dd>
                </>
              )}
            </dl>
            {view.player.otherTickets.length > 0 && (
              <>
                <h3>{t("player.otherTickets")}</h3>
                <ul class="other-tickets">
                  {view.player.otherTickets.map((other) => (
                    <li key={other.id}>
                      <Link to={`/tickets/${other.id}`}>#{other.runningId}</Link> {statusName(other.status)}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </section>
          <section aria-labelledby="tags-title">
            <h2 id="tags-title">{t("ticket.tags")}</h2>
            {ticket.tags.length === 0 ? (
              <p class="muted">{t("ticket.noTags")}</p>
            ) : (
            <ul class="tags">
              {ticket.tags.map((tag) => (
                <li key={tag}>
                  <span>{tag}</span>
                  {predictions.some((p) => p.kind === "tag" && p.name === tag && p.state === "set") && <span class="muted set-by-triage">({t("triage.setByTriage")})</span>}
                  {!closed && (
                    <button type="button" class="remove-tag" aria-label={t("ticket.removeTag", { tag })} disabled={busy} onClick={() => void act([{ type: "removeTags", tagNames: [tag] }])}>
                      ×
                    </button>
                  )}
                </li>
              ))}
            </ul>
            )}
            {!closed && tagsFor(ticket.gameId).some((tag) => !ticket.tags.includes(tag.name)) && (
              <div class="add-tag">
                <label for="add-tag">{t("ticket.addTag")}</label>
                <select
                  id="add-tag"
                  value=""
                  disabled={busy}
                  onChange={(event) => {
                    const value = (event.currentTarget as HTMLSelectElement).value;
                    if (value !== "") void act([{ type: "addTags", tagNames: [value] }]);
                  }}
                >
                  <option value="">{t("ticket.chooseTag")}</option>
                  {tagsFor(ticket.gameId)
                    .filter((tag) => !ticket.tags.includes(tag.name))
                    .map((tag) => (
                      <option key={tag.name} value={tag.name}>
                        {tag.name}
                      </option>
                    ))}
                </select>
              </div>
            )}
          </section>
        </aside>
      </div>
    </AppLayout>
  );
}
