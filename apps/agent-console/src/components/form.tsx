// Form parts shared by the pages: a labelled field whose error is tied to its input
// (aria-describedby, aria-invalid), and an alert announced when it appears.
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { t } from "../i18n.ts";

export function Alert({ children, kind = "error" }: { children: ComponentChildren; kind?: "error" | "success" }) {
  return (
    <div class={`alert ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}

interface FieldProps {
  id: string;
  label: string;
  type?: "text" | "email" | "password";
  value: string;
  onInput: (value: string) => void;
  autoComplete?: string;
  inputMode?: "text" | "numeric" | "decimal" | "email";
  error?: string | undefined;
  hint?: string | undefined;
  required?: boolean;
  autoFocus?: boolean;
}

export function Field({ id, label, type = "text", value, onInput, autoComplete, inputMode, error, hint, required = true, autoFocus }: FieldProps) {
  const input = useRef<HTMLInputElement>(null);
  // The first field of a form takes the focus when its page opens: the autofocus attribute alone
  // is not applied to a page drawn later. A layout effect, so the focus moves as the field is
  // drawn and nothing typed meanwhile lands elsewhere; the page's heading leaves a field alone
  // (see PageTitle).
  useLayoutEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={id}
        // Preact types each input type separately; all three take the same attributes here.
        type={type as "text"}
        value={value}
        required={required}
        autoComplete={autoComplete}
        inputMode={inputMode}
        ref={input}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy}
        onInput={(event) => onInput((event.currentTarget as HTMLInputElement).value)}
      />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * The API's validation issues grouped by the part of a form each belongs to: `partOf` maps an
 * issue's JSON pointer to a part's key, `text` gives its message; two issues of one part are joined.
 */
export function issuesByPart(
  issues: { path?: string; message?: string }[],
  partOf: (path: string) => string,
  text: (issue: { path?: string; message?: string }) => string = (issue) => issue.message ?? "",
): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const issue of issues) {
    const at = partOf(issue.path ?? "");
    const message = text(issue);
    parts[at] = parts[at] ? `${parts[at]} ${message}` : message;
  }
  return parts;
}

/** What the API refused at a part of a form, under it (its id for the part's aria-describedby). */
export function RefusedAt({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="field-error" id={id}>
      {t("form.refused", { reason: error })}
    </p>
  );
}

/**
 * A delete's second step in place of its button: "Really delete" (focused, so Enter confirms) and
 * "Cancel". `label` names what goes, for screen readers.
 */
export function ConfirmDelete({ label, confirmText, cancelText, onConfirm, onCancel }: { label: string; confirmText: string; cancelText: string; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  return (
    <span class="confirm">
      <button type="button" ref={confirm} class="button small danger" onClick={onConfirm} aria-label={label}>
        {confirmText}
      </button>
      <button type="button" class="button small" onClick={onCancel}>
        {cancelText}
      </button>
    </span>
  );
}
