// The keyboard shortcuts: one list feeds the help dialog (`?`), and the keys that work on every
// page (`/` search, `?` this dialog) are handled here; the list's and the ticket's own keys are
// handled by their pages. A key typed into a field, during IME composition or with a modifier is
// never a shortcut, and nothing below a dialog reacts while it is open.
import { signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n.ts";
import type { MessageKey } from "../messages/en.ts";
import { navigate } from "../router.ts";

export interface Shortcut {
  keys: string[];
  label: MessageKey;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ["j", "k"], label: "shortcuts.move" },
  { keys: ["Enter"], label: "shortcuts.open" },
  { keys: ["r"], label: "shortcuts.reply" },
  { keys: ["n"], label: "shortcuts.note" },
  { keys: ["e"], label: "shortcuts.resolve" },
  { keys: ["/"], label: "shortcuts.search" },
  { keys: ["?"], label: "shortcuts.help" },
];

/** The id of the search field that `/` focuses (the inbox's and the search page's). */
export const SEARCH_INPUT_ID = "search-input";

const helpOpen = signal(false);

/** Whether a modal dialog is open (page shortcuts then do nothing). */
export function dialogOpen(): boolean {
  return document.querySelector("dialog[open]") !== null;
}

function isShortcutTarget(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement;
  return !(target.closest("input, textarea, select, [contenteditable]") || dialogOpen() || event.isComposing || event.ctrlKey || event.metaKey || event.altKey);
}

/** `/` and `?` on every page of a signed-in user, and the dialog listing every shortcut. */
export function GlobalShortcuts() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isShortcutTarget(event)) return;
      if (event.key === "/") {
        event.preventDefault();
        const field = document.getElementById(SEARCH_INPUT_ID);
        if (field) field.focus();
        else navigate("/search");
      } else if (event.key === "?") {
        event.preventDefault();
        helpOpen.value = true;
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  return helpOpen.value ? <ShortcutsDialog onClose={() => (helpOpen.value = false)} /> : null;
}

/** A modal dialog: focus moves into it, Tab cycles inside it, Escape closes it, and focus returns where it was. */
function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const before = document.activeElement as HTMLElement | null;
    element.showModal();
    element.querySelector<HTMLElement>("button")?.focus();
    return () => {
      if (element.open) element.close();
      before?.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Tab") return;
    const focusable = [...(dialog.current?.querySelectorAll<HTMLElement>("button, [href], [tabindex]:not([tabindex='-1'])") ?? [])];
    const first = focusable[0];
    const last = focusable.at(-1);
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={dialog}
      class="shortcuts-dialog"
      aria-labelledby="shortcuts-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onKeyDown={onKeyDown}
    >
      <h2 id="shortcuts-title">{t("shortcuts.title")}</h2>
      <table class="shortcuts">
        <caption class="visually-hidden">{t("shortcuts.title")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("shortcuts.keyColumn")}</th>
            <th scope="col">{t("shortcuts.actionColumn")}</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.label}>
              <td>
                {shortcut.keys.map((key, index) => (
                  <span key={key}>
                    {index > 0 && " / "}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
              <td>{t(shortcut.label)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" class="button primary" onClick={onClose}>
        {t("shortcuts.close")}
      </button>
    </dialog>
  );
}
