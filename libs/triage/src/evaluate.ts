// Quality of predictions against held-out labelled tickets: precision, recall and F1 per tag and
// per field value, their macro averages, and what the "set" decisions alone would have done.
// Tickets unlabelled for the tags (tags null) or for a field (no value) are not counted for it,
// as in training.
import type { LabelledTicket, TriagePrediction, TriageSchema } from "./model.ts";

export interface ClassScores {
  name: string;
  /** Held-out tickets that have it. */
  support: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface Evaluation {
  /** A tag counts as predicted when its probability is at least 0.5. */
  tags: ClassScores[];
  /** Per field, per value: the most probable value is the prediction. */
  fields: { key: string; accuracy: number; tickets: number; values: ClassScores[] }[];
  macro: { tagF1: number; tagPrecision: number; tagRecall: number; fieldValueF1: number };
  /**
   * How far the tags' probabilities are from the frequencies they claim: the tag predictions
   * (every tag of every labelled ticket) in ten bins of probability, the mean |probability -
   * share of positives| of each bin weighted by its size (expected calibration error; 0 is
   * perfect), and the Brier score (mean squared error of the probabilities).
   */
  tagCalibration: { expectedError: number; brier: number };
  /** The values the triage would set (confidence >= the set threshold): how many were right, and the share of labels they cover. */
  set: { threshold: number; tagPrecision: number; tagCoverage: number; fieldPrecision: number; fieldCoverage: number };
}

function scores(name: string, tp: number, fp: number, fn: number): ClassScores {
  // 0/0 precision (never predicted) is 0: a class the model never proposes is not precise, it is absent.
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { name, support: tp + fn, truePositives: tp, falsePositives: fp, falseNegatives: fn, precision, recall, f1 };
}

const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

export function evaluate(schema: TriageSchema, tickets: LabelledTicket[], predictions: TriagePrediction[], setThreshold: number): Evaluation {
  const tags = schema.tags.map((tag) => {
    let tp = 0, fp = 0, fn = 0;
    tickets.forEach((ticket, i) => {
      if (ticket.tags === null) return;
      const actual = ticket.tags.includes(tag);
      const predicted = (predictions[i]!.tags.find((p) => p.tag === tag)?.confidence ?? 0) >= 0.5;
      if (predicted && actual) tp++;
      else if (predicted) fp++;
      else if (actual) fn++;
    });
    return scores(tag, tp, fp, fn);
  });
  let setRight = 0, setWrong = 0, tagLabels = 0;
  let fieldSetRight = 0, fieldSetWrong = 0, fieldLabels = 0;
  tickets.forEach((ticket, i) => {
    if (ticket.tags !== null) {
      tagLabels += ticket.tags.filter((t) => schema.tags.includes(t)).length;
      for (const p of predictions[i]!.tags) {
        if (p.confidence < setThreshold) continue;
        if (ticket.tags.includes(p.tag)) setRight++;
        else setWrong++;
      }
    }
    for (const p of predictions[i]!.fields) {
      const actual = ticket.fields[p.key];
      if (actual === undefined) continue;
      fieldLabels++;
      if (p.value === null || p.confidence < setThreshold) continue;
      if (p.value === actual) fieldSetRight++;
      else fieldSetWrong++;
    }
  });
  const fields = schema.fields.map((field) => {
    const labelled = tickets.map((t, i) => ({ actual: t.fields[field.key], predicted: predictions[i]!.fields.find((p) => p.key === field.key)?.value ?? null })).filter((r) => r.actual !== undefined && field.values.includes(r.actual));
    const values = field.values.map((value) => {
      let tp = 0, fp = 0, fn = 0;
      for (const r of labelled) {
        if (r.predicted === value && r.actual === value) tp++;
        else if (r.predicted === value) fp++;
        else if (r.actual === value) fn++;
      }
      return scores(value, tp, fp, fn);
    });
    const right = labelled.filter((r) => r.predicted === r.actual).length;
    return { key: field.key, accuracy: labelled.length === 0 ? 0 : right / labelled.length, tickets: labelled.length, values };
  });
  const bins = Array.from({ length: 10 }, () => ({ count: 0, confidence: 0, positives: 0 }));
  let squared = 0;
  let predicted = 0;
  tickets.forEach((ticket, i) => {
    if (ticket.tags === null) return;
    for (const p of predictions[i]!.tags) {
      const actual = ticket.tags.includes(p.tag) ? 1 : 0;
      const bin = bins[Math.min(9, Math.floor(p.confidence * 10))]!;
      bin.count++;
      bin.confidence += p.confidence;
      bin.positives += actual;
      squared += (p.confidence - actual) ** 2;
      predicted++;
    }
  });
  const expectedError = predicted === 0 ? 0 : bins.reduce((sum, b) => sum + (b.count === 0 ? 0 : Math.abs(b.confidence - b.positives)), 0) / predicted;
  return {
    tags,
    fields,
    tagCalibration: { expectedError, brier: predicted === 0 ? 0 : squared / predicted },
    macro: {
      tagF1: mean(tags.map((t) => t.f1)),
      tagPrecision: mean(tags.map((t) => t.precision)),
      tagRecall: mean(tags.map((t) => t.recall)),
      fieldValueF1: mean(fields.flatMap((f) => f.values.filter((v) => v.support > 0).map((v) => v.f1))),
    },
    set: {
      threshold: setThreshold,
      tagPrecision: setRight + setWrong === 0 ? 0 : setRight / (setRight + setWrong),
      tagCoverage: tagLabels === 0 ? 0 : setRight / tagLabels,
      fieldPrecision: fieldSetRight + fieldSetWrong === 0 ? 0 : fieldSetRight / (fieldSetRight + fieldSetWrong),
      fieldCoverage: fieldLabels === 0 ? 0 : fieldSetRight / fieldLabels,
    },
  };
}
