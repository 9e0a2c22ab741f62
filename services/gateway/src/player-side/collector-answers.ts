// Checks a player's collector answers against the game's definition of the collector
// (content's Collector): every answer names a field of it once and has its type, required
// fields are answered, option answers are among the options, EMAIL and DATE look like one.
// The answers are then stored with the definition's title and labels, so agents read what
// the game defined, not what a client claimed.
import type { Collector } from "@support/proto";
import { isEmail, type ValidationIssue } from "@support/errors";
import type { Schemas } from "../openapi/types.ts";

type Answer = Schemas["CollectorAnswer"];

const datePattern = /^\d{4}-\d{2}-\d{2}$/;

function isDate(value: string): boolean {
  if (datePattern.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }
  // A date-time (RFC 3339: a `T` and a zone), as a date picker with a time may send.
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}

/** Whether the answer counts as given for a required field. */
function isAnswered(answer: Answer): boolean {
  switch (answer.type) {
    case "FILE":
      return answer.attachments.length > 0;
    case "CHECKBOX":
      return answer.value === true;
    case "SELECT_GROUP":
    case "DROPDOWN":
      return answer.value.length > 0;
    default:
      return typeof answer.value === "string" && answer.value.trim() !== "";
  }
}

/**
 * The issues of the answers (paths into the request body: `/fields/1/value`); an empty list
 * when they fit the definition.
 */
export function checkCollectorAnswers(collector: Collector, answers: Answer[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const definitions = new Map(collector.fields.map((field) => [field.key, field]));
  const answered = new Map<string, Answer>();
  answers.forEach((answer, index) => {
    const at = `/fields/${index}`;
    const definition = answer.key === null || answer.key === undefined ? undefined : definitions.get(answer.key);
    if (!definition) {
      issues.push({ path: `${at}/key`, message: "is not a field of the collector" });
      return;
    }
    if (answered.has(definition.key)) {
      issues.push({ path: `${at}/key`, message: "is answered twice" });
      return;
    }
    answered.set(definition.key, answer);
    if (answer.type !== definition.type) {
      issues.push({ path: `${at}/type`, message: `must be ${definition.type}` });
      return;
    }
    const options = new Set(definition.options);
    if (answer.type === "SELECT_GROUP" || answer.type === "DROPDOWN") {
      if (answer.type === "DROPDOWN" && answer.value.length > 1) issues.push({ path: `${at}/value`, message: "must have at most one option" });
      answer.value.forEach((value, i) => {
        if (!options.has(value)) issues.push({ path: `${at}/value/${i}`, message: "is not an option of the field" });
      });
      if (new Set(answer.value).size !== answer.value.length) issues.push({ path: `${at}/value`, message: "must not repeat an option" });
    } else if (answer.type !== "CHECKBOX" && answer.type !== "FILE" && typeof answer.value === "string" && answer.value.trim() !== "") {
      const value = answer.value.trim();
      if (answer.type === "EMAIL" && !isEmail(value)) issues.push({ path: `${at}/value`, message: "must be an email address" });
      if (answer.type === "DATE" && !isDate(value)) issues.push({ path: `${at}/value`, message: "must be a date (YYYY-MM-DD) or a date-time" });
      if (answer.type === "PLATFORM_SELECTOR" && options.size > 0 && !options.has(value)) issues.push({ path: `${at}/value`, message: "is not an option of the field" });
    }
    if (definition.required && !isAnswered(answer)) issues.push({ path: `${at}/value`, message: "is required" });
  });
  for (const field of collector.fields) {
    if (field.required && !answered.has(field.key)) issues.push({ path: "/fields", message: `must answer the required field ${JSON.stringify(field.key)}` });
  }
  return issues;
}

/** The answers with the definition's labels (checked answers only: every key is a field). */
export function withDefinitionLabels(collector: Collector, answers: Answer[]): Answer[] {
  const labels = new Map(collector.fields.map((field) => [field.key, field.label]));
  return answers.map((answer) => ({ ...answer, label: (answer.key && labels.get(answer.key)) || answer.label }));
}
