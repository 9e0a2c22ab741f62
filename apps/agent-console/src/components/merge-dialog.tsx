// "Merge into…" on the ticket page: a modal dialog to choose the ticket this one is merged into
// (one of the player's other open tickets, or a ticket number typed in) and confirm. A modal
// <dialog> keeps focus inside it (the page behind is inert) and closes on Escape; focus goes
// back to the button that opened it. The rules (same player and game, both open) are the
// server's; its refusals are shown in the dialog.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call, type Ticket, type TicketPage } from "../api.ts";
import { t } from "../i18n.ts";
import { navigate } from "../router.ts";
import { statusName } from "../pages/inbox.tsx";
import { Alert } from "./form.tsx";

const TYPED = "typed";

/** The ticket of the user's games with that running number, if any. */
async function ticketNumbered(runningId: number): Promise<Ticket | undefined> {
  const { body } = await call<TicketPage>("GET", `/tickets?q=${encodeURIComponent(`#${runningId}`)}&limit=20`);
  return body.tickets.map((item) => item.ticket).find((ticket) => ticket.runningId === runningId);
}

function refusal(caught: unknown): string {
  if (!(caught instanceof ApiError)) return t("app.error");
  if (caught.status === 404) return t("merge.notFound");
  if (caught.status === 409) return t("merge.closed");
  if (caught.status === 400) return caught.paths.includes("/targetTicketId") ? t("merge.otherPlayer") : t("app.error");
  return t("app.error");
}

export function MergeButton({ ticket, candidates, disabled }: { ticket: Ticket; candidates: Ticket[]; disabled: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState<string>("");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const open_ = candidates.filter((candidate) => candidate.status !== "closed");

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  function show() {
    setChoice(open_[0]?.id ?? TYPED);
    setTyped("");
    setError(undefined);
    setOpen(true);
  }

  // Tab from the last control goes to the first, Shift+Tab from the first to the last: focus
  // never leaves the dialog for the browser's own controls either.
  function keepFocusInside(event: KeyboardEvent) {
    if (event.key !== "Tab" || !dialog.current) return;
    const focusable = [...dialog.current.querySelectorAll<HTMLElement>("input:not([disabled]), button:not([disabled]), a[href]")].filter(
      (element) => !(element instanceof HTMLInputElement && element.type === "radio" && !element.checked),
    );
    const first = focusable[0];
    const last = focusable.at(-1);
    if (!first || !last) return;
    if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    } else if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    }
  }

  function hide() {
    setOpen(false);
    opener.current?.focus();
  }

  async function confirm(event: Event) {
    event.preventDefault();
    setError(undefined);
    let targetId = choice;
    setBusy(true);
    try {
      if (choice === TYPED) {
        const number = Number(typed.trim().replace(/^#/, ""));
        if (!Number.isInteger(number) || number < 1) {
          setError(t("merge.numberInvalid"));
          return;
        }
        const found = await ticketNumbered(number);
        if (!found) {
          setError(t("merge.notFound"));
          return;
        }
        targetId = found.id;
      }
      await call("POST", `/tickets/${ticket.id}/merge`, { targetTicketId: targetId });
      setOpen(false);
      navigate(`/tickets/${targetId}`);
    } catch (caught) {
      setError(refusal(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button type="button" class="button" ref={opener} disabled={disabled} onClick={show} aria-haspopup="dialog">
        {t("merge.open")}
      </button>
      <dialog
        ref={dialog}
        class="merge-dialog"
        aria-labelledby="merge-title"
        aria-describedby="merge-explained"
        onKeyDown={keepFocusInside}
        onCancel={(event) => {
          event.preventDefault();
          hide();
        }}
      >
        {open && (
          <form onSubmit={(event) => void confirm(event)}>
            <h2 id="merge-title">{t("merge.title", { number: ticket.runningId })}</h2>
            <p id="merge-explained">{t("merge.explained", { number: ticket.runningId })}</p>
            <fieldset>
              <legend>{t("merge.target")}</legend>
              {open_.map((candidate) => (
                <label key={candidate.id} class="merge-choice">
                  <input type="radio" name="merge-target" value={candidate.id} checked={choice === candidate.id} onChange={() => setChoice(candidate.id)} />
                  {t("merge.candidate", { number: candidate.runningId, status: statusName(candidate.status) })}
                </label>
              ))}
              {open_.length === 0 && <p class="hint">{t("merge.noCandidates")}</p>}
              <label class="merge-choice">
                <input type="radio" name="merge-target" value={TYPED} checked={choice === TYPED} onChange={() => setChoice(TYPED)} />
                {t("merge.byNumber")}
              </label>
              {choice === TYPED && (
                <>
                  <label for="merge-number">{t("merge.number")}</label>
                  <input
                    id="merge-number"
                    type="text"
                    inputMode="numeric"
                    autoComplete="off"
                    value={typed}
                    onInput={(event) => setTyped((event.currentTarget as HTMLInputElement).value)}
                  />
                </>
              )}
            </fieldset>
            {error && <Alert>{error}</Alert>}
            <div class="dialog-buttons">
              <button type="submit" class="button primary" disabled={busy}>
                {t("merge.confirm")}
              </button>
              <button type="button" class="button" onClick={hide}>
                {t("merge.cancel")}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}
