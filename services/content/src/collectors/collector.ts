// Collector definitions: per game, the forms a player fills in (the contact form of the web
// support page among them). Tickets stores the answers as COLLECTOR_RESULT events; the
// definition says which fields exist, their types, options and which are required. Pure rules only.
import { optionalBoolean, pointerToken, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

/** The eight field types of a collector result (the public API's CollectorField types). */
export const COLLECTOR_FIELD_TYPES = ["TEXT", "SELECT_GROUP", "DROPDOWN", "DATE", "EMAIL", "CHECKBOX", "PLATFORM_SELECTOR", "FILE"] as const;
export type CollectorFieldType = (typeof COLLECTOR_FIELD_TYPES)[number];

/** Types whose answer is one of the options (SELECT_GROUP: several of them); PLATFORM_SELECTOR may list them. */
const NEEDS_OPTIONS: ReadonlySet<string> = new Set(["SELECT_GROUP", "DROPDOWN"]);
const MAY_HAVE_OPTIONS: ReadonlySet<string> = new Set(["SELECT_GROUP", "DROPDOWN", "PLATFORM_SELECTOR"]);

export interface CollectorFieldDefinition {
  key: string;
  label: string;
  type: CollectorFieldType;
  /** Empty for types without options. */
  options: string[];
  required: boolean;
}

export interface Collector {
  id: string;
  companyId: string;
  gameId: string;
  /** The operator's name for it in the tenant file; unique per game. */
  ref: string;
  title: string;
  /** The game's contact form (at most one per game): the web support page shows it to open a ticket. */
  contactForm: boolean;
  fields: CollectorFieldDefinition[];
  createdAt: Date;
  updatedAt: Date;
  /** Set once an admin retired it; a retired collector is never listed, shown or answered. */
  retiredAt: Date | null;
}

export interface NewCollectorInput {
  ref: unknown;
  title: unknown;
  contactForm?: unknown;
  fields: unknown;
}

export type NewCollector = Pick<Collector, "ref" | "title" | "contactForm" | "fields">;

const refPattern = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_FIELDS = 50;
const MAX_OPTIONS = 100;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFieldType(value: unknown): value is CollectorFieldType {
  return typeof value === "string" && (COLLECTOR_FIELD_TYPES as readonly string[]).includes(value);
}

function parseField(value: unknown, path: string, issues: ValidationIssue[]): CollectorFieldDefinition | undefined {
  if (!isPlainObject(value)) {
    issues.push({ path, message: "must be an object" });
    return undefined;
  }
  if (typeof value.key !== "string" || !refPattern.test(value.key)) issues.push({ path: `${path}/key`, message: "must be 1-64 letters, digits, '_' or '-'" });
  const label = requiredText(value.label, `${path}/label`, issues);
  if (!isFieldType(value.type)) {
    issues.push({ path: `${path}/type`, message: `must be one of ${COLLECTOR_FIELD_TYPES.join(", ")}` });
    return undefined;
  }
  const type = value.type;
  let options: string[] = [];
  if (value.options !== undefined && value.options !== null) {
    if (!MAY_HAVE_OPTIONS.has(type)) {
      issues.push({ path: `${path}/options`, message: "only SELECT_GROUP, DROPDOWN and PLATFORM_SELECTOR fields have options" });
    } else if (!Array.isArray(value.options) || value.options.length > MAX_OPTIONS) {
      issues.push({ path: `${path}/options`, message: `must be an array of at most ${MAX_OPTIONS} strings` });
    } else {
      const seen = new Set<string>();
      value.options.forEach((option: unknown, index: number) => {
        const text = requiredText(option, `${path}/options/${index}`, issues);
        if (text === "") return;
        if (seen.has(text)) issues.push({ path: `${path}/options/${index}`, message: "is listed twice" });
        seen.add(text);
      });
      options = [...seen];
    }
  }
  if (NEEDS_OPTIONS.has(type) && options.length === 0 && !issues.some((issue) => issue.path.startsWith(`${path}/options`))) {
    issues.push({ path: `${path}/options`, message: `a ${type} field needs at least one option` });
  }
  const required = optionalBoolean(value.required, `${path}/required`, issues);
  return { key: String(value.key), label, type, options, required };
}

function parseFields(input: unknown, issues: ValidationIssue[]): CollectorFieldDefinition[] {
  const fields: CollectorFieldDefinition[] = [];
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_FIELDS) {
    issues.push({ path: "/fields", message: `must be an array of 1-${MAX_FIELDS} fields` });
  } else {
    const keys = new Map<string, number>();
    input.forEach((value: unknown, index: number) => {
      const field = parseField(value, `/fields/${index}`, issues);
      if (!field) return;
      const earlier = keys.get(field.key);
      if (earlier !== undefined) issues.push({ path: `/fields/${index}/key`, message: `duplicates the key of /fields/${pointerToken(earlier)}` });
      else keys.set(field.key, index);
      fields.push(field);
    });
  }
  return fields;
}

/** Checks a new collector definition; field keys are unique within it. */
export function parseNewCollector(input: NewCollectorInput): NewCollector {
  const issues: ValidationIssue[] = [];
  if (typeof input.ref !== "string" || !refPattern.test(input.ref)) issues.push({ path: "/ref", message: "must be 1-64 letters, digits, '_' or '-'" });
  const title = requiredText(input.title, "/title", issues);
  const contactForm = optionalBoolean(input.contactForm, "/contactForm", issues);
  const fields = parseFields(input.fields, issues);
  throwIfInvalid(issues);
  return { ref: input.ref as string, title, contactForm, fields };
}

/**
 * The ref of a collector an admin creates without naming one: its title in letters, digits and
 * dashes, with a random suffix so that two collectors of one title can exist.
 */
export function refFromTitle(title: unknown, suffix: string): string {
  const base = (typeof title === "string" ? title : "")
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .toLowerCase()
    .slice(0, 48);
  return `${base || "collector"}-${suffix}`;
}

export interface CollectorChangeInput {
  title: unknown;
  fields: unknown;
}

export type CollectorChange = Pick<Collector, "title" | "fields">;

/** Checks an admin's change of a collector: its whole title and field list, with the rules of a new one. */
export function parseCollectorChange(input: CollectorChangeInput): CollectorChange {
  const issues: ValidationIssue[] = [];
  const title = requiredText(input.title, "/title", issues);
  const fields = parseFields(input.fields, issues);
  throwIfInvalid(issues);
  return { title, fields };
}

function sameField(a: CollectorFieldDefinition, b: CollectorFieldDefinition): boolean {
  return a.key === b.key && a.label === b.label && a.type === b.type && a.required === b.required && a.options.join("\n") === b.options.join("\n") && a.options.length === b.options.length;
}

/** Whether a change leaves the title and every field (in order) as they are (stored fields come back with jsonb's key order). */
export function sameDefinition(a: CollectorChange, b: CollectorChange): boolean {
  return a.title === b.title && a.fields.length === b.fields.length && a.fields.every((field, index) => sameField(field, b.fields[index]!));
}

/** What the audit log keeps of a collector (before and after a change). */
export function auditedCollector(collector: Collector): Record<string, unknown> {
  return {
    gameId: collector.gameId,
    ref: collector.ref,
    title: collector.title,
    contactForm: collector.contactForm,
    fields: collector.fields,
    ...(collector.retiredAt ? { retiredAt: collector.retiredAt.toISOString() } : {}),
  };
}

/** The data of content.collector.created and content.collector.updated. */
export function collectorEventData(collector: Collector) {
  return { id: collector.id, gameId: collector.gameId, ref: collector.ref, title: collector.title, contactForm: collector.contactForm, fields: collector.fields };
}
