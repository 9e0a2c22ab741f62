// The triage's rules without I/O: which tags and fields it predicts (the company's AI flags),
// what a resolved ticket teaches (only what an agent decided), what a prediction does to a new
// ticket (set through an action, or suggested), and when a prediction counts for the online
// precision.
import type { LabelledTicket, PredictionOutcome, TriagePrediction, TriageSchema } from "@support/triage";
import type { TicketAction } from "../tickets/ticket-actions.ts";
import { fieldsForGame, tagsForGame, type Definitions } from "../tickets/field-values.ts";
import type { FieldValue, Ticket } from "../tickets/ticket.ts";
import type { HistoryTicket, NewPrediction, Prediction } from "./triage.repository.ts";

/** The company's threshold until an admin sets one: measured at 93 % right on the corpus (docs/automation.md). */
export const DEFAULT_THRESHOLD = 0.8;
/** Below this the triage shows nothing (the library's default). */
export const SUGGEST_THRESHOLD = 0.5;

/**
 * The tags with isAiTag (company-wide or of any game) and the fields with isAiField whose values
 * are a closed set (dropdowns: their options, booleans: "true" and "false"); text, number and
 * date fields are not predicted (open values). A key defined for several games gets every
 * option any of them has.
 */
export function triageSchema(definitions: Definitions): TriageSchema {
  const tags = [...new Set(definitions.tags.filter((tag) => tag.ai === true).map((tag) => tag.name))].sort();
  const fields = new Map<string, Set<string>>();
  for (const field of definitions.fields) {
    if (field.ai !== true) continue;
    const values = field.type === "dropdown" ? field.options : field.type === "boolean" ? ["true", "false"] : undefined;
    if (values === undefined || values.length < 2) continue;
    const set = fields.get(field.key) ?? new Set<string>();
    for (const value of values) set.add(value);
    fields.set(field.key, set);
  }
  return { tags, fields: [...fields].sort(([a], [b]) => a.localeCompare(b)).map(([key, values]) => ({ key, values: [...values] })) };
}

export function schemaIsEmpty(schema: TriageSchema): boolean {
  return schema.tags.length === 0 && schema.fields.length === 0;
}

/** Both schemas name the same tags and fields with the same values (a model trained for one fits the other). */
export function sameSchema(a: TriageSchema, b: TriageSchema): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A field value as the classifier reads it. */
function valueText(value: FieldValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  return undefined;
}

/**
 * What a resolved ticket teaches. Its AI tags count when an agent made their last change (they
 * saw the triage's values and kept or changed them), and only when at least one is left (a ticket
 * whose agents set none says nothing: it is not a negative). A field counts when an agent made
 * the last change of that key. Values only the automation or an integration set are skipped, so
 * that the model does not learn from itself.
 */
export function labelledTicket(ticket: HistoryTicket, schema: TriageSchema): LabelledTicket {
  const aiTags = new Set(schema.tags);
  const kept = ticket.tags.filter((tag) => aiTags.has(tag));
  const tags = ticket.tagsChangedBy === "user" && kept.length > 0 ? kept : null;
  const fields: Record<string, string> = {};
  for (const { key, values } of schema.fields) {
    const last = ticket.fieldChanges.findLast((change) => change.keys.includes(key));
    const value = valueText(ticket.fields[key]);
    if (last?.actor === "user" && value !== undefined && values.includes(value)) fields[key] = value;
  }
  return { gameId: ticket.gameId, language: ticket.language, subject: "", messages: ticket.messages.length > 0 ? ticket.messages : [ticket.firstMessage], tags, fields };
}

export interface TriagePlan {
  /** The actions that set values (attributed to the triage), empty when nothing is set. */
  actions: TicketAction[];
  predictions: NewPrediction[];
}

/**
 * What the prediction does to the ticket, against the company's definitions now: a tag or field
 * that lost its AI flag, does not apply to the ticket's game, or already has a value on the
 * ticket (an agent or the API was first) is left alone.
 */
export function planTriage(ticket: Ticket, prediction: TriagePrediction, definitions: Definitions): TriagePlan {
  const tags = tagsForGame(definitions, ticket.gameId);
  const aiTags = new Set(definitions.tags.filter((tag) => tag.ai === true && (tag.gameId === null || tag.gameId === ticket.gameId)).map((tag) => tag.name));
  const fields = fieldsForGame(definitions, ticket.gameId);
  const predictions: NewPrediction[] = [];
  const setTags: string[] = [];
  const setFields: Record<string, FieldValue> = {};
  for (const tag of prediction.tags) {
    if (tag.decision === "none" || !tags.has(tag.tag) || !aiTags.has(tag.tag) || ticket.tags.includes(tag.tag)) continue;
    predictions.push({ kind: "tag", name: tag.tag, value: tag.tag, confidence: tag.confidence, decision: tag.decision, state: tag.decision === "set" ? "set" : "pending", model: tag.model });
    if (tag.decision === "set") setTags.push(tag.tag);
  }
  for (const field of prediction.fields) {
    if (field.decision === "none" || field.value === null) continue;
    const definition = fields.get(field.key);
    if (definition?.ai !== true || ticket.fields[field.key] !== undefined) continue;
    let value: FieldValue;
    if (definition.type === "dropdown" && definition.options.includes(field.value)) value = field.value;
    else if (definition.type === "boolean" && (field.value === "true" || field.value === "false")) value = field.value === "true";
    else continue;
    predictions.push({ kind: "field", name: field.key, value: field.value, confidence: field.confidence, decision: field.decision, state: field.decision === "set" ? "set" : "pending", model: field.model });
    if (field.decision === "set") setFields[field.key] = value;
  }
  const actions: TicketAction[] = [];
  if (setTags.length > 0) actions.push({ type: "addTags", tagNames: setTags });
  if (Object.keys(setFields).length > 0) actions.push({ type: "setFields", fields: setFields });
  return { actions, predictions };
}

/** The action that applies a suggestion, or undefined when its field no longer takes the value. */
export function suggestionAction(prediction: Pick<Prediction, "kind" | "name" | "value">, definitions: Definitions, gameId: string): TicketAction | undefined {
  if (prediction.kind === "tag") return { type: "addTags", tagNames: [prediction.name] };
  const definition = fieldsForGame(definitions, gameId).get(prediction.name);
  if (definition?.type === "boolean") return { type: "setFields", fields: { [prediction.name]: prediction.value === "true" } };
  if (definition?.type === "dropdown" && definition.options.includes(prediction.value)) return { type: "setFields", fields: { [prediction.name]: prediction.value } };
  return undefined;
}

/**
 * A prediction's outcome for onlinePrecision, or undefined while it is not known yet. Known: once
 * its ticket is closed (the agents are done), once an agent applied or dismissed the suggestion,
 * and as soon as a value the triage set is removed or changed (a correction). Right when the
 * ticket has (or ended with) the predicted value.
 */
export function predictionOutcome(prediction: Prediction & { ticketClosed: boolean; tags: string[]; fields: Record<string, FieldValue> }): PredictionOutcome | undefined {
  const final = prediction.kind === "tag"
    ? (prediction.tags.includes(prediction.name) ? prediction.name : null)
    : (valueText(prediction.fields[prediction.name]) ?? null);
  const corrected = prediction.decision === "set" && final !== prediction.value;
  const decided = prediction.state === "applied" || prediction.state === "dismissed";
  if (!prediction.ticketClosed && !decided && !corrected) return undefined;
  return { name: prediction.name, kind: prediction.kind, decision: prediction.decision, predicted: prediction.value, final };
}
