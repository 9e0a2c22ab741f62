// The triage of a company's AI flags: which of its isAiTag tags a new ticket should get, and
// which value each isAiField field with a closed set of values should take, learned from the
// tickets its agents labelled. One model per company, and per game and per (game, language)
// where the slice has enough labelled tickets and its model beats the level above on tickets
// none of them learned from; each head (a tag, a field) falls back on its own, so a tag that is
// rare in one language is still predicted there by the game's or the company's model.
import { DEFAULT_FEATURE_OPTIONS, vectorize, type FeatureOptions, type SparseVector } from "./features.ts";
import {
  DEFAULT_SGD_OPTIONS,
  fitPlatt,
  fitTemperature,
  headOffsets,
  LinearScorer,
  sigmoid,
  softmaxInto,
  trainLinear,
  type Head,
  type Labels,
  type LinearWeights,
  type SgdOptions,
} from "./linear.ts";

/**
 * What the classifier predicts. Free-text, number and date fields are not predicted: their
 * values are open, a classifier can only repeat values it has seen. A dropdown field's values are
 * its options; a boolean field's are "true" and "false".
 */
export interface TriageSchema {
  /** Names of the company's tags with isAiTag. */
  tags: string[];
  /** Fields with isAiField and a closed set of values. */
  fields: { key: string; values: string[] }[];
}

export interface TicketText {
  gameId: string;
  /** One of the API's language codes. */
  language: string;
  subject: string;
  /** The player's messages, first first (what an agent read before labelling). */
  messages: string[];
}

export interface LabelledTicket extends TicketText {
  /**
   * The isAiTag tags its agents left on the ticket; null when they set none of them (the ticket
   * says nothing about the AI tags and is not used for them: an unlabelled ticket is not a
   * negative example).
   */
  tags: string[] | null;
  /** isAiField values its agents set (keys not set are unknown, not negatives). */
  fields: Record<string, string>;
}

export interface TrainOptions {
  /** Labelled tickets a (game, language) slice needs for a model of its own; fewer: the game's. */
  minLanguageTickets: number;
  /** Labelled tickets a game needs for a model of its own; fewer: the company's. */
  minGameTickets: number;
  /** A tag head is trained in a slice only with at least this many positive and negative tickets. */
  minExamplesPerTag: number;
  /** A field head is trained in a slice only with at least this many tickets that have a value, of at least two values. */
  minExamplesPerField: number;
  /** Slices with at least this many labelled tickets keep calibrationShare of them aside to calibrate the probabilities. */
  minTicketsToCalibrate: number;
  calibrationShare: number;
  /** A game's or language's head needs at least this many held-out tickets to be compared with its parent's; fewer: not kept. */
  minHeldOutToCompare: number;
  /** ... and a held-out log loss lower than its parent's by at least this share to be kept. */
  minGain: number;
  features: FeatureOptions;
  sgd: SgdOptions;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = Object.freeze({
  minLanguageTickets: 300,
  minGameTickets: 300,
  minExamplesPerTag: 15,
  minExamplesPerField: 50,
  minTicketsToCalibrate: 200,
  calibrationShare: 0.2,
  minHeldOutToCompare: 40,
  minGain: 0.05,
  features: DEFAULT_FEATURE_OPTIONS,
  sgd: DEFAULT_SGD_OPTIONS,
});

/** How a head turns scores into probabilities: Platt's A, B (binary) or a temperature (softmax). */
export type Calibration = { a: number; b: number } | { temperature: number };

export interface SliceModel {
  /** "company", "game:<id>" or "game:<id>:<language>". */
  key: string;
  /** Labelled tickets it learned from (calibration ones included). */
  tickets: number;
  weights: LinearWeights;
  calibration: Calibration[];
}

export interface TriageModel {
  schema: TriageSchema;
  features: FeatureOptions;
  slices: Map<string, SliceModel>;
}

export function sliceKeys(gameId: string, language: string): string[] {
  return [`game:${gameId}:${language}`, `game:${gameId}`, "company"];
}

export function ticketText(ticket: Pick<TicketText, "subject" | "messages">): string {
  return [ticket.subject, ...ticket.messages].join("\n");
}

/** A ticket's label for a head: 0/1 for a tag, the value's index for a field, undefined when not labelled. */
function labelOf(head: Head, ticket: LabelledTicket): number | undefined {
  if (head.kind === "binary") return ticket.tags === null ? undefined : ticket.tags.includes(head.name) ? 1 : 0;
  const index = head.classes.indexOf(ticket.fields[head.name] ?? "");
  return index < 0 ? undefined : index;
}

function headsAndLabels(schema: TriageSchema, tickets: LabelledTicket[], options: TrainOptions): { heads: Head[]; labels: Labels[] } {
  const heads: Head[] = [];
  const labelledForTags = tickets.filter((t) => t.tags !== null);
  for (const tag of schema.tags) {
    const positives = labelledForTags.filter((t) => t.tags!.includes(tag)).length;
    if (positives < options.minExamplesPerTag || labelledForTags.length - positives < options.minExamplesPerTag) continue;
    heads.push({ kind: "binary", name: tag });
  }
  for (const field of schema.fields) {
    const withValue = tickets.filter((t) => field.values.includes(t.fields[field.key] ?? ""));
    if (withValue.length < options.minExamplesPerField) continue;
    if (new Set(withValue.map((t) => t.fields[field.key])).size < 2) continue;
    heads.push({ kind: "softmax", name: field.key, classes: field.values });
  }
  return { heads, labels: tickets.map((t) => heads.map((head) => labelOf(head, t))) };
}

function trainSlice(key: string, schema: TriageSchema, tickets: LabelledTicket[], vectors: SparseVector[], heldOut: boolean[], options: TrainOptions): SliceModel | undefined {
  const { heads, labels } = headsAndLabels(schema, tickets, options);
  if (heads.length === 0) return undefined;
  const train = [...tickets.keys()].filter((i) => !heldOut[i]);
  const held = [...tickets.keys()].filter((i) => heldOut[i]);
  const weights = trainLinear(
    heads,
    2 ** options.features.hashBits,
    train.map((i) => vectors[i]!),
    train.map((i) => labels[i]!),
    options.sgd,
  );
  const scorer = new LinearScorer(weights);
  const heldScores = held.map((i) => Float64Array.from(scorer.scores(vectors[i]!)));
  const calibration: Calibration[] = heads.map((head, h) => {
    const at = scorer.offsets[h]!;
    const rows = held.map((i, n) => ({ label: labels[i]![h], scores: heldScores[n]! })).filter((r) => r.label !== undefined);
    if (head.kind === "binary") {
      const positives = rows.filter((r) => r.label === 1).length;
      // Platt needs both classes among the held-out tickets; without, the raw sigmoid stays.
      if (positives === 0 || positives === rows.length) return { a: 1, b: 0 };
      return fitPlatt(rows.map((r) => r.scores[at]!), rows.map((r) => r.label!));
    }
    if (rows.length < 10) return { temperature: 1 };
    return { temperature: fitTemperature(rows.map((r) => r.scores.slice(at, at + head.classes.length)), rows.map((r) => r.label!)) };
  });
  return { key, tickets: tickets.length, weights, calibration };
}

/** The calibrated probability a slice's head gives a ticket's label (binary: 0 or 1; softmax: a class index). */
function probabilityOfLabel(slice: SliceModel, h: number, scores: Float64Array, label: number): number {
  const head = slice.weights.heads[h]!;
  const at = scorerOf(slice).offsets[h]!;
  if (head.kind === "binary") {
    const { a, b } = slice.calibration[h] as { a: number; b: number };
    const p = sigmoid(a * scores[at]! + b);
    return label === 1 ? p : 1 - p;
  }
  const { temperature } = slice.calibration[h] as { temperature: number };
  const probabilities = new Float64Array(head.classes.length);
  softmaxInto(scores, at, head.classes.length, probabilities, temperature);
  return probabilities[label]!;
}

/** The slice with only the heads kept: their weight columns, the features that still weigh. */
function keepHeads(slice: SliceModel, keep: boolean[]): SliceModel {
  const { heads, features, weights, scales, biases } = slice.weights;
  const { offsets, outputs } = headOffsets(heads);
  const columns = heads.flatMap((head, h) => (keep[h] ? Array.from({ length: head.kind === "binary" ? 1 : head.classes.length }, (_, k) => offsets[h]! + k) : []));
  const rows: number[] = [];
  features.forEach((_, i) => {
    if (columns.some((c) => weights[i * outputs + c] !== 0)) rows.push(i);
  });
  const kept = new Int8Array(rows.length * columns.length);
  rows.forEach((i, r) => columns.forEach((c, k) => (kept[r * columns.length + k] = weights[i * outputs + c]!)));
  return {
    key: slice.key,
    tickets: slice.tickets,
    weights: {
      heads: heads.filter((_, h) => keep[h]),
      features: Uint32Array.from(rows, (i) => features[i]!),
      weights: kept,
      scales: Float32Array.from(columns, (c) => scales[c]!),
      biases: Float32Array.from(columns, (c) => biases[c]!),
    },
    calibration: slice.calibration.filter((_, h) => keep[h]),
  };
}

/**
 * Trains the company's model, then each game's and each (game, language)'s that has enough
 * labelled tickets, and keeps a game's or language's head (a tag, a field) only where it beats
 * the model it would replace: a lower log loss, by options.minGain, on the slice's held-out
 * tickets, which no model learned from. On the bench corpus one company model was better than
 * models per game and language (their tickets say the same things in the same words), so
 * slices earn their place by measurement, not by size alone. Tickets labelled for neither the
 * tags nor any field are ignored.
 */
export function trainTriageModel(schema: TriageSchema, tickets: LabelledTicket[], options: Partial<TrainOptions> = {}): TriageModel {
  const settings: TrainOptions = { ...DEFAULT_TRAIN_OPTIONS, ...options };
  const labelled = tickets.filter((t) => t.tags !== null || schema.fields.some((f) => f.values.includes(t.fields[f.key] ?? "")));
  const vectors = labelled.map((t) => vectorize(ticketText(t), settings.features));
  // One held-out set for every level, so that no model has learned the tickets that compare it with another.
  const every = Math.max(2, Math.round(1 / settings.calibrationShare));
  const heldOut = labelled.map((_, i) => labelled.length >= settings.minTicketsToCalibrate && i % every === 0);
  const groups = new Map<string, number[]>();
  const add = (key: string, i: number) => {
    const members = groups.get(key);
    if (members) members.push(i);
    else groups.set(key, [i]);
  };
  labelled.forEach((t, i) => {
    add("company", i);
    add(`game:${t.gameId}`, i);
    add(`game:${t.gameId}:${t.language}`, i);
  });
  const depth = (key: string) => key.split(":").length;
  const slices = new Map<string, SliceModel>();
  // Company first, then games, then languages: each compares itself with what is already kept.
  for (const [key, members] of [...groups].sort((a, b) => depth(a[0]) - depth(b[0]))) {
    const minimum = depth(key) === 1 ? 1 : depth(key) === 2 ? settings.minGameTickets : settings.minLanguageTickets;
    if (members.length < minimum) continue;
    const memberTickets = members.map((i) => labelled[i]!);
    const slice = trainSlice(
      key,
      schema,
      memberTickets,
      members.map((i) => vectors[i]!),
      members.map((i) => heldOut[i]!),
      settings,
    );
    if (!slice) continue;
    if (depth(key) === 1) {
      slices.set(key, slice);
      continue;
    }
    const parents = sliceKeys(memberTickets[0]!.gameId, memberTickets[0]!.language)
      .slice(depth(key) === 3 ? 1 : 2)
      .map((k) => slices.get(k))
      .filter((s): s is SliceModel => s !== undefined);
    const keep = slice.weights.heads.map((head, h) => {
      const parent = parents.map((p) => ({ p, ph: p.weights.heads.findIndex((x) => x.name === head.name) })).find((x) => x.ph >= 0);
      const rows = members.map((i) => ({ i, label: labelOf(head, labelled[i]!) })).filter((r) => heldOut[r.i] && r.label !== undefined);
      if (rows.length < settings.minHeldOutToCompare) return false;
      if (!parent) return true;
      let own = 0;
      let theirs = 0;
      for (const r of rows) {
        own -= Math.log(Math.max(probabilityOfLabel(slice, h, scorerOf(slice).scores(vectors[r.i]!), r.label!), 1e-12));
        theirs -= Math.log(Math.max(probabilityOfLabel(parent.p, parent.ph, scorerOf(parent.p).scores(vectors[r.i]!), r.label!), 1e-12));
      }
      return own < theirs * (1 - settings.minGain);
    });
    if (keep.some(Boolean)) slices.set(key, keepHeads(slice, keep));
  }
  return { schema, features: settings.features, slices };
}

export interface Thresholds {
  /** A value at or above this confidence is set on the ticket (the company's setting). */
  set: number;
  /** At or above this (and below set) the console suggests it; below, nothing. Default 0.5. */
  suggest?: number;
}

export type Decision = "set" | "suggest" | "none";

export interface TagPrediction {
  tag: string;
  /** Probability that the tag applies. */
  confidence: number;
  decision: Decision;
  /** The slice whose model decided ("game:<id>:<language>", "game:<id>", "company"), or null when none had this tag. */
  model: string | null;
}

export interface FieldPrediction {
  key: string;
  /** The most probable value, or null when no model knows the field. */
  value: string | null;
  confidence: number;
  decision: Decision;
  model: string | null;
}

export interface TriagePrediction {
  tags: TagPrediction[];
  fields: FieldPrediction[];
}

function decide(confidence: number, thresholds: Thresholds): Decision {
  if (confidence >= thresholds.set) return "set";
  if (confidence >= (thresholds.suggest ?? 0.5)) return "suggest";
  return "none";
}

const scorers = new WeakMap<SliceModel, LinearScorer>();
function scorerOf(slice: SliceModel): LinearScorer {
  let scorer = scorers.get(slice);
  if (!scorer) scorers.set(slice, (scorer = new LinearScorer(slice.weights)));
  return scorer;
}

/** Every AI tag's and field's prediction for a new ticket, each from the most specific slice that learned it. */
export function classifyTicket(model: TriageModel, ticket: TicketText, thresholds: Thresholds): TriagePrediction {
  const vector = vectorize(ticketText(ticket), model.features);
  const chain = sliceKeys(ticket.gameId, ticket.language)
    .map((key) => model.slices.get(key))
    .filter((s): s is SliceModel => s !== undefined);
  const scored = new Map<SliceModel, Float64Array>();
  const scoresOf = (slice: SliceModel) => {
    let scores = scored.get(slice);
    if (!scores) scored.set(slice, (scores = scorerOf(slice).scores(vector)));
    return scores;
  };
  const find = (name: string) => {
    for (const slice of chain) {
      const h = slice.weights.heads.findIndex((head) => head.name === name);
      if (h >= 0) return { slice, h, at: scorerOf(slice).offsets[h]! };
    }
    return undefined;
  };
  const tags = model.schema.tags.map((tag): TagPrediction => {
    const found = find(tag);
    if (!found) return { tag, confidence: 0, decision: "none", model: null };
    const { a, b } = found.slice.calibration[found.h] as { a: number; b: number };
    const confidence = sigmoid(a * scoresOf(found.slice)[found.at]! + b);
    return { tag, confidence, decision: decide(confidence, thresholds), model: found.slice.key };
  });
  const fields = model.schema.fields.map((field): FieldPrediction => {
    const found = find(field.key);
    if (!found) return { key: field.key, value: null, confidence: 0, decision: "none", model: null };
    const head = found.slice.weights.heads[found.h] as Extract<Head, { kind: "softmax" }>;
    const { temperature } = found.slice.calibration[found.h] as { temperature: number };
    const probabilities = new Float64Array(head.classes.length);
    softmaxInto(scoresOf(found.slice), found.at, head.classes.length, probabilities, temperature);
    let best = 0;
    for (let k = 1; k < probabilities.length; k++) if (probabilities[k]! > probabilities[best]!) best = k;
    const confidence = probabilities[best]!;
    return { key: field.key, value: head.classes[best]!, confidence, decision: decide(confidence, thresholds), model: found.slice.key };
  });
  return { tags, fields };
}
