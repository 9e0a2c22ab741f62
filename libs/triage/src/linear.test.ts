import { Matrix, solve } from "ml-matrix";
import { describe, expect, it } from "vitest";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import type { SparseVector } from "./features.ts";
import { fitPlatt, fitTemperature, LinearScorer, sigmoid, softmaxInto, trainLinear } from "./linear.ts";

/** A small dense problem written as sparse vectors: 3 features, labels from a known rule plus noise. */
function problem(n: number, seed: number) {
  const rng = xoroshiro128plus(seed);
  const rand = () => uniformFloat64(rng) * 2 - 1;
  const xs: number[][] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = [rand(), rand(), rand()];
    const z = 2 * x[0]! - 3 * x[1]! + 0.5 + rand() * 1.5;
    xs.push(x);
    ys.push(z > 0 ? 1 : 0);
  }
  const vectors: SparseVector[] = xs.map((x) => ({ indices: Uint32Array.of(0, 1, 2), values: Float64Array.from(x) }));
  return { xs, ys, vectors };
}

/**
 * The exact minimum of λ/2 |w|² + 1/n Σ log-loss (bias not regularized), by Newton's method with
 * ml-matrix: the reference the SGD must reach.
 */
function newtonOptimum(xs: number[][], ys: number[], l2: number): number[] {
  const d = xs[0]!.length + 1;
  let theta = new Array<number>(d).fill(0);
  for (let iteration = 0; iteration < 50; iteration++) {
    const gradient = Matrix.zeros(d, 1);
    const hessian = Matrix.zeros(d, d);
    xs.forEach((x, i) => {
      const row = [...x, 1];
      const p = sigmoid(row.reduce((s, v, k) => s + v * theta[k]!, 0));
      for (let a = 0; a < d; a++) {
        gradient.set(a, 0, gradient.get(a, 0) + ((p - ys[i]!) * row[a]!) / xs.length);
        for (let b = 0; b < d; b++) hessian.set(a, b, hessian.get(a, b) + (p * (1 - p) * row[a]! * row[b]!) / xs.length);
      }
    });
    for (let a = 0; a < d - 1; a++) {
      gradient.set(a, 0, gradient.get(a, 0) + l2 * theta[a]!);
      hessian.set(a, a, hessian.get(a, a) + l2);
    }
    const step = solve(hessian, gradient).to1DArray();
    theta = theta.map((t, k) => t - step[k]!);
  }
  return theta;
}

describe("linear model by SGD", () => {
  it("reaches the exact L2-regularized logistic regression optimum (Newton's method with ml-matrix)", () => {
    const { xs, ys, vectors } = problem(300, 7);
    const l2 = 0.01;
    const reference = newtonOptimum(xs, ys, l2);
    const trained = trainLinear([{ kind: "binary", name: "t" }], 3, vectors, ys.map((y) => [y]), { l2, epochs: 300, initialStep: 0.5, seed: 3, minTickets: 1 });
    const weights = [0, 1, 2].map((f) => {
      const row = [...trained.features].indexOf(f);
      return row < 0 ? 0 : trained.weights[row]! * trained.scales[0]!;
    });
    // Within the 8-bit quantization step of the largest weight (1/127 of it) plus SGD's own error.
    const tolerance = (Math.max(...reference.slice(0, 3).map(Math.abs)) / 127) * 2 + 0.02;
    weights.forEach((w, k) => expect(Math.abs(w - reference[k]!)).toBeLessThan(tolerance));
    expect(Math.abs(trained.biases[0]! - reference[3]!)).toBeLessThan(0.05);
  });

  it("learns a softmax head that ranks the right class first", () => {
    const { vectors, xs } = problem(400, 11);
    // Three classes by which of the first two coordinates is larger, or both negative.
    const classOf = (x: number[]) => (x[0]! < 0 && x[1]! < 0 ? 2 : x[0]! > x[1]! ? 0 : 1);
    const trained = trainLinear([{ kind: "softmax", name: "f", classes: ["a", "b", "c"] }], 3, vectors, xs.map((x) => [classOf(x)]), { l2: 1e-3, epochs: 50, initialStep: 0.5, seed: 1, minTickets: 1 });
    const scorer = new LinearScorer(trained);
    const p = new Float64Array(3);
    let right = 0;
    vectors.forEach((v, i) => {
      softmaxInto(scorer.scores(v), 0, 3, p);
      if (p.indexOf(Math.max(...p)) === classOf(xs[i]!)) right++;
    });
    expect(right / vectors.length).toBeGreaterThan(0.85);
  });

  it("ignores tickets without a label for a head, and features seen in too few tickets", () => {
    const vectors: SparseVector[] = [
      { indices: Uint32Array.of(1), values: Float64Array.of(1) },
      { indices: Uint32Array.of(1), values: Float64Array.of(1) },
      { indices: Uint32Array.of(2), values: Float64Array.of(1) },
    ];
    const trained = trainLinear([{ kind: "binary", name: "t" }], 4, vectors, [[1], [undefined], [0]], { l2: 1e-3, epochs: 20, initialStep: 0.5, seed: 1, minTickets: 2 });
    expect([...trained.features]).toEqual([1]);
  });

  it("Platt scaling recovers the slope and offset that made the labels", () => {
    const rng = xoroshiro128plus(5);
    const scores: number[] = [];
    const labels: number[] = [];
    for (let i = 0; i < 20000; i++) {
      const s = uniformFloat64(rng) * 8 - 4;
      scores.push(s);
      labels.push(uniformFloat64(rng) < sigmoid(0.5 * s - 1) ? 1 : 0);
    }
    const { a, b } = fitPlatt(scores, labels);
    expect(a).toBeCloseTo(0.5, 1);
    expect(b).toBeCloseTo(-1, 1);
  });

  it("temperature scaling recovers the temperature that made the labels", () => {
    const rng = xoroshiro128plus(9);
    const rows: Float64Array[] = [];
    const labels: number[] = [];
    const p = new Float64Array(3);
    for (let i = 0; i < 8000; i++) {
      const row = Float64Array.from([0, 1, 2], () => uniformFloat64(rng) * 6);
      softmaxInto(row, 0, 3, p, 2.5);
      const u = uniformFloat64(rng);
      labels.push(u < p[0]! ? 0 : u < p[0]! + p[1]! ? 1 : 2);
      rows.push(row);
    }
    expect(fitTemperature(rows, labels)).toBeCloseTo(2.5, 0);
  });
});
