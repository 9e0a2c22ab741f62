// A linear model over hashed sparse features with several heads: binary heads (one output, a
// logistic regression: one AI tag each, one-vs-rest) and softmax heads (one output per value:
// a dropdown field's values), trained together by stochastic gradient descent with L2
// regularization, then calibrated on tickets it did not learn from.
//
// Written here rather than taken from a library: the npm packages for text classification are
// naive Bayes with English-only tokenizers (wink-naive-bayes-text-classifier, natural's), or
// logistic regression on dense matrices (ml-logistic-regression: one release, a dense matrix of
// 2^18 columns per ticket is out of the question), and none reads hashed sparse vectors, trains
// several heads in one pass or serializes to plain JSON. SGD for L2-regularized logistic
// regression is a few dozen lines (the weight-scale form below, so a step costs only the
// ticket's features, not the whole vector); linear.test.ts checks it against the exact optimum
// computed by Newton's method with ml-matrix.
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import type { SparseVector } from "./features.ts";

export type Head = { kind: "binary"; name: string } | { kind: "softmax"; name: string; classes: string[] };

/** One example's label per head: 0/1 for a binary head, a class index for a softmax head, undefined when unknown. */
export type Labels = (number | undefined)[];

export interface SgdOptions {
  /** L2 strength λ (per example). */
  l2: number;
  /** Passes over the examples. */
  epochs: number;
  /** The first step's size; steps then shrink as 1 / (λ (t0 + t)). */
  initialStep: number;
  /** Seed of the example order (training is deterministic for the same data and seed). */
  seed: number;
  /**
   * Features in fewer training tickets than this get no weight: order numbers, player ids and
   * one-off typos would otherwise fill the model (most of its size) and teach it nothing.
   */
  minTickets: number;
}

export const DEFAULT_SGD_OPTIONS: SgdOptions = Object.freeze({ l2: 1e-5, epochs: 8, initialStep: 0.5, seed: 1, minTickets: 2 });

/**
 * The trained weights, compact: only features that carry weight, each weight quantized to 8 bits
 * with one scale per output (weight = q × scales[output]). A model is a quarter of its float32
 * size (most of a company's model is weights), and the quality measured in `pnpm bench triage`
 * did not change; predictions are computed from the quantized weights, so a saved and loaded
 * model predicts exactly what the trained one did.
 */
export interface LinearWeights {
  heads: Head[];
  /** Bucket indices ascending. */
  features: Uint32Array;
  /** features.length × outputs, row-major: the weights of feature i are at i * outputs. */
  weights: Int8Array;
  /** One per output: the weight of a quantized 1. */
  scales: Float32Array;
  /** One per output. */
  biases: Float32Array;
}

/** Outputs of each head in the weight rows: binary 1, softmax one per class. */
export function headOffsets(heads: Head[]): { offsets: number[]; outputs: number } {
  const offsets: number[] = [];
  let outputs = 0;
  for (const head of heads) {
    offsets.push(outputs);
    outputs += head.kind === "binary" ? 1 : head.classes.length;
  }
  return { offsets, outputs };
}

function shuffle(order: Uint32Array, rng: ReturnType<typeof xoroshiro128plus>): void {
  for (let i = order.length - 1; i > 0; i--) {
    const j = uniformInt(rng, 0, i);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Softmax of scores[from, from + n) into out[0, n). */
export function softmaxInto(scores: ArrayLike<number>, from: number, n: number, out: Float64Array, temperature = 1): void {
  let max = -Infinity;
  for (let k = 0; k < n; k++) max = Math.max(max, scores[from + k]! / temperature);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    out[k] = Math.exp(scores[from + k]! / temperature - max);
    sum += out[k]!;
  }
  for (let k = 0; k < n; k++) out[k]! /= sum;
}

/** Minimizes the regularized log loss of every head over the examples by SGD. */
export function trainLinear(heads: Head[], dimensions: number, examples: SparseVector[], labels: Labels[], options: SgdOptions = DEFAULT_SGD_OPTIONS): LinearWeights {
  const { offsets, outputs } = headOffsets(heads);
  const w = new Float64Array(dimensions * outputs);
  const b = new Float64Array(outputs);
  const scores = new Float64Array(outputs);
  const gradient = new Float64Array(outputs);
  const probabilities = new Float64Array(outputs);
  // Tickets per feature, saturating at 255; a feature is learned once it reaches minTickets.
  const tickets = new Uint8Array(dimensions);
  for (const x of examples) for (const index of x.indices) if (tickets[index]! < 255) tickets[index]!++;
  const learned = (index: number) => tickets[index]! >= options.minTickets;
  // The true weights are scale * w: shrinking every weight for L2 is one multiplication.
  let scale = 1;
  const { l2 } = options;
  const t0 = 1 / (l2 * options.initialStep);
  let t = 0;
  const rng = xoroshiro128plus(options.seed);
  const order = Uint32Array.from(examples.keys());
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, rng);
    for (const e of order) {
      const x = examples[e]!;
      const y = labels[e]!;
      const step = 1 / (l2 * (t0 + t++));
      scale *= 1 - step * l2;
      if (scale < 1e-9) {
        for (let i = 0; i < w.length; i++) w[i]! *= scale;
        scale = 1;
      }
      for (let o = 0; o < outputs; o++) scores[o] = b[o]!;
      for (let j = 0; j < x.indices.length; j++) {
        const row = x.indices[j]! * outputs;
        const v = x.values[j]! * scale;
        for (let o = 0; o < outputs; o++) scores[o]! += w[row + o]! * v;
      }
      gradient.fill(0);
      let any = false;
      heads.forEach((head, h) => {
        const label = y[h];
        if (label === undefined) return;
        any = true;
        const at = offsets[h]!;
        if (head.kind === "binary") {
          gradient[at] = sigmoid(scores[at]!) - label;
        } else {
          softmaxInto(scores, at, head.classes.length, probabilities);
          for (let k = 0; k < head.classes.length; k++) gradient[at + k] = probabilities[k]! - (k === label ? 1 : 0);
        }
      });
      if (!any) continue;
      for (let j = 0; j < x.indices.length; j++) {
        const index = x.indices[j]!;
        if (!learned(index)) continue;
        const row = index * outputs;
        const v = (step * x.values[j]!) / scale;
        for (let o = 0; o < outputs; o++) w[row + o]! -= v * gradient[o]!;
      }
      for (let o = 0; o < outputs; o++) b[o]! -= step * gradient[o]!;
    }
  }
  const scales = new Float32Array(outputs);
  for (let index = 0; index < dimensions; index++) {
    if (!learned(index)) continue;
    for (let o = 0; o < outputs; o++) scales[o] = Math.max(scales[o]!, Math.abs(w[index * outputs + o]! * scale));
  }
  for (let o = 0; o < outputs; o++) scales[o] = scales[o]! / 127 || 1;
  const quantized = (index: number, o: number) => Math.round((w[index * outputs + o]! * scale) / scales[o]!);
  const kept: number[] = [];
  for (let index = 0; index < dimensions; index++) {
    if (!learned(index)) continue;
    // A feature whose every weight rounds to 0 changes no score: dropped.
    for (let o = 0; o < outputs; o++) {
      if (quantized(index, o) !== 0) {
        kept.push(index);
        break;
      }
    }
  }
  const weights = new Int8Array(kept.length * outputs);
  kept.forEach((index, i) => {
    for (let o = 0; o < outputs; o++) weights[i * outputs + o] = quantized(index, o);
  });
  return { heads, features: Uint32Array.from(kept), weights, scales, biases: Float32Array.from(b) };
}

/** A fast reader of trained weights: bucket -> row. */
export class LinearScorer {
  readonly outputs: number;
  readonly offsets: number[];
  readonly model: LinearWeights;
  private readonly rows = new Map<number, number>();

  constructor(model: LinearWeights) {
    this.model = model;
    const { offsets, outputs } = headOffsets(model.heads);
    this.offsets = offsets;
    this.outputs = outputs;
    model.features.forEach((feature, i) => this.rows.set(feature, i * outputs));
  }

  /** Raw scores (before sigmoid or softmax) of every output. */
  scores(x: SparseVector, out: Float64Array = new Float64Array(this.outputs)): Float64Array {
    const { weights, scales, biases } = this.model;
    const outputs = this.outputs;
    out.fill(0, 0, outputs);
    for (let j = 0; j < x.indices.length; j++) {
      const row = this.rows.get(x.indices[j]!);
      if (row === undefined) continue;
      const v = x.values[j]!;
      for (let o = 0; o < outputs; o++) out[o]! += weights[row + o]! * v;
    }
    for (let o = 0; o < outputs; o++) out[o] = biases[o]! + out[o]! * scales[o]!;
    return out;
  }
}

/**
 * Platt scaling: A, B such that sigmoid(A * score + B) is a calibrated probability, fitted by
 * Newton's method on held-out scores with Platt's smoothed targets (a held-out set where every
 * ticket of a class was right does not make the model certain).
 */
export function fitPlatt(scores: number[], labels: number[]): { a: number; b: number } {
  const positives = labels.filter((l) => l === 1).length;
  const negatives = labels.length - positives;
  const hi = (positives + 1) / (positives + 2);
  const lo = 1 / (negatives + 2);
  const targets = labels.map((l) => (l === 1 ? hi : lo));
  let a = 1;
  let b = 0;
  for (let iteration = 0; iteration < 100; iteration++) {
    let gA = 0, gB = 0, hAA = 1e-12, hAB = 0, hBB = 1e-12;
    for (let i = 0; i < scores.length; i++) {
      const p = sigmoid(a * scores[i]! + b);
      const d = p - targets[i]!;
      const w = p * (1 - p);
      gA += d * scores[i]!;
      gB += d;
      hAA += w * scores[i]! * scores[i]!;
      hAB += w * scores[i]!;
      hBB += w;
    }
    const det = hAA * hBB - hAB * hAB;
    if (Math.abs(det) < 1e-18) break;
    const da = (hBB * gA - hAB * gB) / det;
    const db = (hAA * gB - hAB * gA) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) < 1e-9 && Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

/** Temperature T of softmax(scores / T) minimizing the held-out log loss (golden-section search on log T). */
export function fitTemperature(scoreRows: Float64Array[], labels: number[]): number {
  const probabilities = new Float64Array(scoreRows[0]?.length ?? 1);
  const loss = (logT: number) => {
    const t = Math.exp(logT);
    let total = 0;
    scoreRows.forEach((row, i) => {
      softmaxInto(row, 0, row.length, probabilities, t);
      total -= Math.log(Math.max(probabilities[labels[i]!]!, 1e-12));
    });
    return total;
  };
  let lo = Math.log(0.05), hi = Math.log(20);
  const ratio = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
  let f1 = loss(x1), f2 = loss(x2);
  for (let i = 0; i < 40; i++) {
    if (f1 < f2) {
      hi = x2; x2 = x1; f2 = f1; x1 = hi - ratio * (hi - lo); f1 = loss(x1);
    } else {
      lo = x1; x1 = x2; f1 = f2; x2 = lo + ratio * (hi - lo); f2 = loss(x2);
    }
  }
  return Math.exp((lo + hi) / 2);
}
