// The contact form: the message, optional attachments and, when the game defines one, its
// contact-form collector. Sending opens a ticket, then records the collector's answers on it.
// Reached from an article's "Still need help?", it names the article, and so does the ticket.
import { useEffect, useRef, useState } from "preact/hooks";
import { CollectorFieldset, isEmptyAnswer, type CollectorFieldValue, type CollectorFormField } from "@support/collector-form";
import type { CollectorAnswer, CollectorFieldDefinition } from "../api.ts";
import { BackHome, href, useApp, usePageHeading } from "../app-context.tsx";
import { FilePicker, useFiles } from "./files.tsx";

type FieldValue = CollectorFieldValue;
type Picker = ReturnType<typeof useFiles>;

export function ContactView({ article }: { article?: string | undefined }) {
  const { api, session, locale, fail } = useApp();
  const { t } = locale;
  const heading = usePageHeading(t("contact.title"));
  // An article the game does not list (a stale link) is not named.
  const about = article === undefined ? undefined : (session.resource?.key === article ? session.resource : session.resources.find((resource) => resource.key === article));
  // The text around the title (wherever the language puts it), the title itself a link to the article.
  const aboutText = t("contact.aboutArticle", { title: "\u0000" }).split("\u0000");
  const collector = session.contactForm;
  const [message, setMessage] = useState("");
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  // Errors show from the first attempt to send, and follow the fields from then on: a field
  // filled in loses its error at once.
  const [tried, setTried] = useState(false);
  // A FILE field's picker keeps its own files: it tells the form when they change, so that the
  // field's error follows.
  const [, setPickedFiles] = useState(0);
  const [sending, setSending] = useState(false);
  const files = useFiles();
  const fieldPickers = useRef(new Map<string, Picker>()).current;

  function validate(): Record<string, string> {
    const found: Record<string, string> = {};
    if (!message.trim()) found.message = t("contact.messageRequired");
    for (const field of collector?.fields ?? []) {
      if (!field.required) continue;
      const value = values[field.key];
      const empty = field.type === "FILE" ? (fieldPickers.get(field.key)?.files.length ?? 0) === 0 : isEmptyAnswer(field, value);
      if (empty) found[`field-${field.key}`] = t("contact.required");
    }
    return found;
  }

  async function submit(event: Event) {
    event.preventDefault();
    const found = validate();
    setTried(true);
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
      const { ticketId } = await api.openTicket(message.trim(), attachments, about?.key);
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
  const errors = tried ? validate() : {};

  return (
    <>
      <BackHome />
      <h1 ref={heading} tabIndex={-1}>
        {t("contact.title")}
      </h1>
      {about && (
        <p class="about-article">
          {aboutText[0]}
          <a href={href.resource(about.key)} lang={about.language && about.language !== locale.language ? about.language : undefined}>
            <bdi>{about.title}</bdi>
          </a>
          {aboutText[1]}
        </p>
      )}
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
          <CollectorFieldset
            collector={collector}
            values={values}
            errors={Object.fromEntries(collector.fields.map((field) => [field.key, errors[`field-${field.key}`]]))}
            texts={{ optional: t("contact.optional") }}
            onChange={set}
            renderFile={(field, id) => <FieldFilePicker field={field} id={id} pickers={fieldPickers} onPicked={() => setPickedFiles((count) => count + 1)} />}
          />
        )}
        <button type="submit" class="button primary" disabled={sending}>
          {sending ? t("contact.sending") : t("contact.send")}
        </button>
      </form>
    </>
  );
}

/** A FILE field of the collector: the page's file picker, whose files are uploaded on sending. */
function FieldFilePicker({ field, id, pickers, onPicked }: { field: CollectorFormField; id: string; pickers: Map<string, Picker>; onPicked: () => void }) {
  const picker = useFiles();
  pickers.set(field.key, picker);
  useEffect(onPicked, [picker.files.length]);
  return <FilePicker id={id} label={field.label} picker={picker} required={field.required} />;
}
