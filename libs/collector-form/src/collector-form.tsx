// A collector as players see it: the fieldset of the web support page's contact form, one input
// per field of eight types. Controlled: the caller keeps the values and the errors (its own
// validation) and draws FILE fields (uploading is the caller's). Used by the web support page and
// by the console's preview of a collector, with the stylesheet next to it.
import type { ComponentChildren, VNode } from "preact";

/** What the web support page offers for a PLATFORM_SELECTOR without options. */
export const PLATFORMS = ["ios", "android", "win", "macos", "linux", "web", "playstation_4", "playstation_5", "switch", "switch_2", "xbox_series", "xbox_one"];

export interface CollectorFormField {
  key: string;
  label: string;
  type: "TEXT" | "SELECT_GROUP" | "DROPDOWN" | "DATE" | "EMAIL" | "CHECKBOX" | "PLATFORM_SELECTOR" | "FILE";
  options?: string[] | undefined;
  required: boolean;
}

export interface CollectorFormDefinition {
  title: string;
  fields: readonly CollectorFormField[];
}

export type CollectorFieldValue = string | string[] | boolean;

export interface CollectorFormTexts {
  /** After the label of a field that is not required ("(optional)"). */
  optional: string;
}

/** Whether a value leaves a required field unanswered (FILE fields are the caller's). */
export function isEmptyAnswer(field: CollectorFormField, value: CollectorFieldValue | undefined): boolean {
  if (field.type === "CHECKBOX") return value !== true;
  if (Array.isArray(value)) return value.length === 0;
  return !String(value ?? "").trim();
}

export interface CollectorInputProps {
  field: CollectorFormField;
  value: CollectorFieldValue | undefined;
  error: string | undefined;
  texts: CollectorFormTexts;
  onChange(value: CollectorFieldValue): void;
  /** Draws a FILE field with the given id and label. */
  renderFile(field: CollectorFormField, id: string): VNode;
  /** Prefix of the inputs' ids (several forms on one page); "field-" by default. */
  idPrefix?: string;
}

/**
 * A field's label as every field of the form shows it: the admin's text, then "(optional)" when
 * the field is not required (FILE fields, drawn by the host, use it too). The admins' texts are
 * in whatever language they wrote them: isolated, so that an English label keeps its
 * punctuation at its end on a right-to-left page.
 */
export function CollectorLabel({ field, optional }: { field: CollectorFormField; optional: string }) {
  return (
    <>
      <bdi>{field.label}</bdi>
      {!field.required && <span class="muted"> {optional}</span>}
    </>
  );
}

export function CollectorInput(props: CollectorInputProps) {
  const { field, value, error, onChange, texts } = props;
  const id = `${props.idPrefix ?? "field-"}${field.key}`;
  const label = <CollectorLabel field={field} optional={texts.optional} />;
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
      return props.renderFile(field, id);
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
              <label for={`${id}-${index}`}>
                <bdi>{option}</bdi>
              </label>
            </div>
          ))}
          {errorText}
        </fieldset>
      );
    }
    case "DROPDOWN":
    case "PLATFORM_SELECTOR": {
      const options = field.options?.length ? field.options : field.type === "PLATFORM_SELECTOR" ? PLATFORMS : [];
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

export interface CollectorFieldsetProps {
  collector: CollectorFormDefinition;
  values: Readonly<Record<string, CollectorFieldValue>>;
  /** By field key. */
  errors: Readonly<Record<string, string | undefined>>;
  texts: CollectorFormTexts;
  onChange(key: string, value: CollectorFieldValue): void;
  renderFile(field: CollectorFormField, id: string): VNode;
  idPrefix?: string;
  children?: ComponentChildren;
}

/** The collector's fieldset: its title as the legend, then its fields in order. */
export function CollectorFieldset(props: CollectorFieldsetProps) {
  return (
    <fieldset class="collector collector-form">
      <legend>
        <bdi>{props.collector.title}</bdi>
      </legend>
      {props.collector.fields.map((field) => (
        <CollectorInput
          key={field.key}
          field={field}
          value={props.values[field.key]}
          error={props.errors[field.key]}
          texts={props.texts}
          onChange={(value) => props.onChange(field.key, value)}
          renderFile={props.renderFile}
          {...(props.idPrefix === undefined ? {} : { idPrefix: props.idPrefix })}
        />
      ))}
      {props.children}
    </fieldset>
  );
}
