// A trained model as plain JSON, for a service to keep in Postgres (jsonb) and load back. The
// weights are already 8-bit integers and float32 scales when trained, written as base64 of their
// (little-endian) bytes: exact (a loaded model predicts exactly what the trained one did) and far
// smaller than decimal numbers. `format` changes when the layout does; a loader refuses formats it does not know.
import type { FeatureOptions } from "./features.ts";
import type { Head } from "./linear.ts";
import type { Calibration, SliceModel, TriageModel, TriageSchema } from "./model.ts";

export const TRIAGE_MODEL_FORMAT = 1;

export interface SerializedSlice {
  key: string;
  tickets: number;
  heads: Head[];
  /** base64 of a little-endian Uint32Array: the bucket of each kept feature, ascending. */
  features: string;
  /** base64 of an Int8Array: features × outputs, quantized. */
  weights: string;
  /** base64 of a little-endian Float32Array: one per output, the weight of a quantized 1. */
  scales: string;
  /** base64 of a little-endian Float32Array: one per output. */
  biases: string;
  calibration: Calibration[];
}

export interface SerializedTriageModel {
  format: typeof TRIAGE_MODEL_FORMAT;
  schema: TriageSchema;
  features: FeatureOptions;
  slices: SerializedSlice[];
}

function toBase64(array: Uint32Array | Float32Array | Int8Array): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
}

function fromBase64<T>(text: string, make: (buffer: ArrayBuffer) => T): T {
  const bytes = Buffer.from(text, "base64");
  // A copy: a typed array of 4-byte values needs its own aligned buffer.
  const buffer = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  return make(buffer);
}

if (new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1) throw new Error("@support/triage reads and writes models as little-endian");

export function serializeTriageModel(model: TriageModel): SerializedTriageModel {
  return {
    format: TRIAGE_MODEL_FORMAT,
    schema: model.schema,
    features: model.features,
    slices: [...model.slices.values()].map((slice) => ({
      key: slice.key,
      tickets: slice.tickets,
      heads: slice.weights.heads,
      features: toBase64(slice.weights.features),
      weights: toBase64(slice.weights.weights),
      scales: toBase64(slice.weights.scales),
      biases: toBase64(slice.weights.biases),
      calibration: slice.calibration,
    })),
  };
}

export function loadTriageModel(json: unknown): TriageModel {
  const model = json as SerializedTriageModel;
  if (model?.format !== TRIAGE_MODEL_FORMAT) throw new Error(`unknown triage model format ${String(model?.format)}`);
  const slices = new Map<string, SliceModel>();
  for (const s of model.slices) {
    const features = fromBase64(s.features, (buffer) => new Uint32Array(buffer));
    const weights = fromBase64(s.weights, (buffer) => new Int8Array(buffer));
    const scales = fromBase64(s.scales, (buffer) => new Float32Array(buffer));
    const biases = fromBase64(s.biases, (buffer) => new Float32Array(buffer));
    slices.set(s.key, { key: s.key, tickets: s.tickets, weights: { heads: s.heads, features, weights, scales, biases }, calibration: s.calibration });
  }
  return { schema: model.schema, features: model.features, slices };
}
