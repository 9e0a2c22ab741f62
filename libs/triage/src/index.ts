// Triage of a company's AI flags (isAiTag tags, isAiField fields): features of multilingual
// ticket texts, per-slice linear models with calibrated probabilities, JSON models, online precision.
export { DEFAULT_FEATURE_OPTIONS, normalizeText, textFeatures, vectorize, type FeatureOptions, type SparseVector } from "./features.ts";
export { DEFAULT_SGD_OPTIONS, type SgdOptions } from "./linear.ts";
export {
  classifyTicket,
  DEFAULT_TRAIN_OPTIONS,
  sliceKeys,
  ticketText,
  trainTriageModel,
  type Decision,
  type FieldPrediction,
  type LabelledTicket,
  type TagPrediction,
  type Thresholds,
  type TicketText,
  type TrainOptions,
  type TriageModel,
  type TriagePrediction,
  type TriageSchema,
} from "./model.ts";
export { loadTriageModel, serializeTriageModel, TRIAGE_MODEL_FORMAT, type SerializedTriageModel } from "./serialize.ts";
export { onlinePrecision, type OnlinePrecision, type PrecisionCount, type PredictionOutcome } from "./precision.ts";
export { evaluate, type Evaluation, type ClassScores } from "./evaluate.ts";
