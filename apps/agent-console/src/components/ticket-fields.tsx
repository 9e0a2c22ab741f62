// The ticket's custom fields, edited with the company's definitions: one input per field of the
// ticket's game (or company-wide) by its type, saved together as one setFields action of the
// fields that changed. setFields cannot clear a value, so an emptied field is left as it was.
// Values of fields an admin retired stay readable, by key, under "Retired fields".
import { useEffect, useState } from "preact/hooks";
import type { Ticket } from "../api.ts";
import { fieldsFor, type FieldDefinition } from "../directory.ts";
import { t } from "../i18n.ts";

type Drafts = Record<string, string>;

/** A stored value as its input shows it. */
function draftOf(field: FieldDefinition, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (field.type === "date" && typeof value === "string") return value.slice(0, 10);
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

/** An input's text as the value setFields takes; undefined when empty; null when it is no value of the type. */
function valueOf(field: FieldDefinition, draft: string): unknown {
  const text = draft.trim();
  if (text === "") return undefined;
  switch (field.type) {
    case "number": {
      const number = Number(text);
      return Number.isFinite(number) ? number : null;
    }
    case "boolean":
      return text === "true";
    default:
      return text;
  }
}

/** How a value reads where it cannot be edited. */
function shown(field: FieldDefinition, value: unknown): string {
  if (value === undefined || value === null || value === "") return "—";
  if (field.type === "boolean") return value === true ? t("fields.yes") : t("fields.no");
  return draftOf(field, value);
}

export function TicketFields({ ticket, busy, closed, onSave }: { ticket: Ticket; busy: boolean; closed: boolean; onSave: (fields: Record<string, unknown>) => void }) {
  const definitions = fieldsFor(ticket.gameId);
  const stored = JSON.stringify(ticket.fields);
  const initial = () => Object.fromEntries(definitions.map((field) => [field.key, draftOf(field, ticket.fields[field.key])]));
  const [drafts, setDrafts] = useState<Drafts>(initial);
  const [invalid, setInvalid] = useState<string[]>([]);
  const [nothing, setNothing] = useState(false);
  // The ticket was read again (a save, another agent's change): show what it holds now.
  useEffect(() => {
    setDrafts(initial());
    setInvalid([]);
  }, [stored, definitions.length]);

  const live = new Set(definitions.map((field) => field.key));
  const retired = Object.entries(ticket.fields).filter(([key, value]) => !live.has(key) && value !== null && value !== undefined && value !== "");
  const retiredList = retired.length > 0 && (
    <>
      <h3 class="retired-title">{t("fields.retired")}</h3>
      <dl class="facts compact">
        {retired.map(([key, value]) => (
          <>
            <dt>
              <code>{key}</code>
            </dt>
            <dd>{Array.isArray(value) ? value.join(", ") : String(value)}</dd>
          </>
        ))}
      </dl>
    </>
  );

  if (definitions.length === 0 && !retiredList) return null;

  if (closed) {
    return (
      <section aria-labelledby="fields-title">
        <h2 id="fields-title">{t("fields.title")}</h2>
        <dl class="facts compact">
          {definitions.map((field) => (
            <>
              <dt>{field.name}</dt>
              <dd>{shown(field, ticket.fields[field.key])}</dd>
            </>
          ))}
        </dl>
        {retiredList}
      </section>
    );
  }

  const inputOf = (field: FieldDefinition) => {
    const id = `field-${field.key}`;
    const common = {
      id,
      value: drafts[field.key] ?? "",
      disabled: busy,
      "aria-invalid": invalid.includes(field.key) ? ("true" as const) : undefined,
      "aria-describedby": invalid.includes(field.key) ? `${id}-error` : undefined,
      onInput: (event: Event) => {
        const value = (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
        setDrafts((current) => ({ ...current, [field.key]: value }));
        setNothing(false);
      },
    };
    switch (field.type) {
      case "boolean":
        return (
          <select {...common} onChange={common.onInput}>
            <option value="">{t("fields.notSet")}</option>
            <option value="true">{t("fields.yes")}</option>
            <option value="false">{t("fields.no")}</option>
          </select>
        );
      case "dropdown":
        return (
          <select {...common} onChange={common.onInput}>
            <option value="">{t("fields.notSet")}</option>
            {field.options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        );
      case "number":
        return <input {...common} type="number" step="any" inputMode="decimal" />;
      case "date":
        return <input {...common} type="date" />;
      default:
        return <input {...common} type="text" />;
    }
  };

  return (
    <section aria-labelledby="fields-title">
      <h2 id="fields-title">{t("fields.title")}</h2>
      <form
        class="ticket-fields"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const changed: Record<string, unknown> = {};
          const bad: string[] = [];
          for (const field of definitions) {
            const draft = drafts[field.key] ?? "";
            // Only what the agent changed: a stored date-time shown as its date, or a dropdown's
            // several values, is not sent back unless edited.
            if (draft === draftOf(field, ticket.fields[field.key])) continue;
            const value = valueOf(field, draft);
            if (value === null) bad.push(field.key);
            else if (value !== undefined) changed[field.key] = value;
          }
          setInvalid(bad);
          if (bad.length > 0) return;
          if (Object.keys(changed).length === 0) {
            setNothing(true);
            return;
          }
          onSave(changed);
        }}
      >
        {definitions.map((field) => (
          <div class="ticket-field" key={field.key}>
            <label for={`field-${field.key}`}>{field.name}</label>
            {inputOf(field)}
            {invalid.includes(field.key) && (
              <p class="field-error" id={`field-${field.key}-error`}>
                {t("fields.notANumber")}
              </p>
            )}
          </div>
        ))}
        {nothing && (
          <p class="hint" role="status">
            {t("fields.nothingChanged")}
          </p>
        )}
        {definitions.length > 0 && (
          <button type="submit" class="button small" disabled={busy}>
            {t("fields.save")}
          </button>
        )}
      </form>
      {retiredList}
    </section>
  );
}
