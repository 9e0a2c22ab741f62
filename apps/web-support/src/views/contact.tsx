// The contact form: the message, optional attachments and, when the game defines one, its
// contact-form collector. Sending opens a ticket, then records the collector's answers on it.
import { useRef, useState } from "preact/hooks";
import type { CollectorAnswer, CollectorFieldDefinition } from "../api.ts";
import { BackHome, href, useApp, usePageHeading } from "../app-context.tsx";
import { FilePicker, useFiles } from "./files.tsx";

const PLATFORMS = ["ios", "android", "win", "macos", "linux", "web", "playstation_4", "playstation_5", "switch", "switch_2", "xbox_series", "xbox_one"];

type FieldValue = string | string[] | boolean;
type Picker = ReturnType<typeof useFiles>;

export function ContactView() {
  const { api, session, locale, fail } = useApp();
  const { t } = locale;
  const heading = usePageHeading(t("contact.title"));
  const collector = session.contactForm;
  const [message, setMessage] = useState("");
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sending, setSending] = useState(false);
  const files = useFiles();
  const fieldPickers = useRef(new Map<string, Picker>()).current;

  function validate(): Record<string, string> {
    const found: Record<string, string> = {};
    if (!message.trim()) found.message = t("contact.messageRequired");
    for (const field of collector?.fields ?? []) {
      if (!field.required) continue;
      const value = values[field.key];
      const empty =
        field.type === "FILE" ? (fieldPickers.get(field.key)?.files.length ?? 0) === 0 : field.type === "CHECKBOX" ? value !== true : Array.isArray(value) ? value.length === 0 : !String(value ?? "").trim();
      if (empty) found[`field-${field.key}`] = t("contact.required");
    }
    return found;
  }

  async function submit(event: Event) {
    event.preventDefault();
    const found = validate();
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) {
      document.getElementById(first)?.focus();
      return;
    }
    if (!files.valid() || [...fieldPickers.values()].some((picker) => !picker.valid())) return;
    setSending(true);
    try {
      const attachments = await files.upload();
      const answers: CollectorAnswer[] = [];
      for (const field of collector?.fields ?? []) answers.push(await answer(field));
      const { ticketId } = await api.openTicket(message.trim(), attachments);
      try {
        if (collector && answers.length > 0) await api.collectorResult(ticketId, collector, answers);
      } finally {
        // The ticket exists either way: show it rather than invite a second one.
        location.hash = href.ticket(ticketId);
      }
    } catch (error) {
      setSending(false);
      fail(error);
    }
  }

  async function answer(field: CollectorFieldDefinition): Promise<CollectorAnswer> {
    const base = { key: field.key, label: field.label };
    const value = values[field.key];
    switch (field.type) {
      case "FILE":
        return { ...base, type: "FILE", attachments: ((await fieldPickers.get(field.key)?.upload()) ?? []).map((attachment) => attachment.id) };
      case "CHECKBOX":
        return { ...base, type: "CHECKBOX", value: typeof value === "boolean" ? value : null };
      case "SELECT_GROUP":
      case "DROPDOWN":
        return { ...base, type: field.type, value: Array.isArray(value) ? value : typeof value === "string" && value ? [value] : [] };
      default:
        return { ...base, type: field.type, value: typeof value === "string" && value.trim() ? value.trim() : null };
    }
  }

  const set = (key: string, value: FieldValue) => setValues((current) => ({ ...current, [key]: value }));

  return (
    <>
      <BackHome />
      <h1 ref={heading} tabIndex={-1}>
        {t("contact.title")}
      </h1>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div class="field">
          <label for="message">{t("contact.message")}</label>
          <textarea
            id="message"
            rows={5}
            maxLength={10000}
            required
            aria-invalid={errors.message ? true : undefined}
            aria-describedby={errors.message ? "message-error" : undefined}
            value={message}
            onInput={(event) => setMessage((event.currentTarget as HTMLTextAreaElement).value)}
          />
          {errors.message && (
            <p id="message-error" class="error">
              {errors.message}
            </p>
          )}
        </div>
        <FilePicker id="attachments" label={t("contact.attachments")} picker={files} />
        {collector && (
          <fieldset class="collector">
            <legend>{collector.title}</legend>
            {collector.fields.map((field) => (
              <CollectorInput key={field.key} field={field} value={values[field.key]} error={errors[`field-${field.key}`]} onChange={(value) => set(field.key, value)} pickers={fieldPickers} />
            ))}
          </fieldset>
        )}
        <button type="submit" class="button primary" disabled={sending}>
          {sending ? t("contact.sending") : t("contact.send")}
        </button>
      </form>
    </>
  );
}

function CollectorInput(props: { field: CollectorFieldDefinition; value: FieldValue | undefined; error: string | undefined; onChange(value: FieldValue): void; pickers: Map<string, Picker> }) {
  const { field, value, error, onChange } = props;
  const { t } = useApp().locale;
  const id = `field-${field.key}`;
  const picker = useFiles();
  if (field.type === "FILE") props.pickers.set(field.key, picker);
  const label = (
    <>
      {field.label}
      {!field.required && <span class="muted"> {t("contact.optional")}</span>}
    </>
  );
  const described = error ? `${id}-error` : undefined;
  const errorText = error && (
    <p id={`${id}-error`} class="error">
      {error}
    </p>
  );
  const common = { id, required: field.required, "aria-invalid": error ? true : undefined, "aria-describedby": described };
  const text = typeof value === "string" ? value : "";

  switch (field.type) {
    case "FILE":
      return <FilePicker id={id} label={field.label} picker={picker} />;
    case "CHECKBOX":
      return (
        <div class="field check">
          <input type="checkbox" {...common} checked={value === true} onChange={(event) => onChange((event.currentTarget as HTMLInputElement).checked)} />
          <label for={id}>{label}</label>
          {errorText}
        </div>
      );
    case "SELECT_GROUP": {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset class="field" id={id} tabIndex={-1} aria-describedby={described}>
          <legend>{label}</legend>
          {(field.options ?? []).map((option, index) => (
            <div class="check" key={option}>
              <input
                type="checkbox"
                id={`${id}-${index}`}
                checked={chosen.includes(option)}
                onChange={(event) => onChange((event.currentTarget as HTMLInputElement).checked ? [...chosen, option] : chosen.filter((item) => item !== option))}
              />
              <label for={`${id}-${index}`}>{option}</label>
            </div>
          ))}
          {errorText}
        </fieldset>
      );
    }
    case "DROPDOWN":
    case "PLATFORM_SELECTOR": {
      const options = field.options ?? (field.type === "PLATFORM_SELECTOR" ? PLATFORMS : []);
      return (
        <div class="field">
          <label for={id}>{label}</label>
          <select {...common} value={text} onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}>
            <option value="">—</option>
            {options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
          {errorText}
        </div>
      );
    }
    default:
      return (
        <div class="field">
          <label for={id}>{label}</label>
          <input
            type={(field.type === "DATE" ? "date" : field.type === "EMAIL" ? "email" : "text") as "text"}
            {...common}
            maxLength={10000}
            value={text}
            onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
          />
          {errorText}
        </div>
      );
  }
}
