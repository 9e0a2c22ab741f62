// Form parts shared by the pages: a labelled field whose error is tied to its input
// (aria-describedby, aria-invalid), and an alert announced when it appears.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

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
  // The first field of a form takes the focus when its page opens (after the page's heading
  // took it, see PageTitle): the autofocus attribute alone is not applied to a page drawn later.
  useEffect(() => {
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
