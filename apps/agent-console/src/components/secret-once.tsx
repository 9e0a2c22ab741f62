// A secret shown once (a new API key, a webhook's signing secret): selected in a read-only field
// for Ctrl+C, a Copy button, and a button that closes it once the user has stored it. Nothing
// shows it again.
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.ts";

export interface SecretOnceTexts {
  title: string;
  /** Why and where to store it. */
  text: string;
  /** The field's label (read by screen readers). */
  label: string;
  /** The closing button. */
  stored: string;
}

export function SecretOnce({ id, secret, texts, onDone }: { id: string; secret: string; texts: SecretOnceTexts; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.select(), []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a refusal): the field is selected for Ctrl+C.
      field.current?.select();
    }
  }
  return (
    <section class="new-secret" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{texts.title}</h2>
      <p>{texts.text}</p>
      <div class="secret-row">
        <label class="visually-hidden" for={id}>
          {texts.label}
        </label>
        <input id={id} ref={field} class="secret-field" readOnly value={secret} />
        <button type="button" class="button" onClick={() => void copy()}>
          {t("secret.copy")}
        </button>
      </div>
      <p role="status" class="hint">
        {copied ? t("secret.copied") : ""}
      </p>
      <button type="button" class="button primary" onClick={onDone}>
        {texts.stored}
      </button>
    </section>
  );
}
