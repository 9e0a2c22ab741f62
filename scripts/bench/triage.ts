// `pnpm bench triage`: the classifier of the AI flags (libs/triage) on the labelled corpus kept in
// the repository (libs/triage/corpus/tickets.jsonl.gz, 12,000 generated tickets): trained on four
// fifths (tickets whose id is not a multiple of 5), judged on the held-out fifth. Reports
// precision, recall and F1 per tag and per field value with their macro averages, what the "set"
// decisions alone would do at several thresholds, the quality per language, the training time
// (wall and CPU), the model's size as JSON (raw and gzip), the load time, and the CPU cost of
// classifying one new ticket (p50/p99 µs per call after a warm-up, in this process: the function
// runs in-process in a service, with no I/O, on the same Node and flags as the services). Also
// the same with one company-wide model, with slices kept by size alone, and without character
// trigrams, for comparison. No stack, no database.
import { gzipSync } from "node:zlib";
import { CORPUS_SCHEMA, readCorpusFile, type CorpusTicket } from "../../libs/triage/corpus/generate.ts";
import {
  classifyTicket,
  DEFAULT_TRAIN_OPTIONS,
  evaluate,
  loadTriageModel,
  serializeTriageModel,
  trainTriageModel,
  type Evaluation,
  type TrainOptions,
  type TriageModel,
} from "../../libs/triage/src/index.ts";
import type { Row, SuiteResult } from "./measure.ts";
import { progress } from "./stack.ts";

/** The "set" threshold the quality table uses (a company setting; 0.8 is the suggested default). */
const SET_THRESHOLD = 0.8;
const THRESHOLDS = [0.6, 0.7, 0.8, 0.9, 0.95];
/** Passes over the held-out tickets when timing classification (after one warm-up pass). */
const TIMING_PASSES = Number(process.env.BENCH_TRIAGE_PASSES ?? 5);

const percent = (x: number) => (x * 100).toFixed(1);
const fixed = (x: number, digits = 3) => x.toFixed(digits);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

interface Trained {
  model: TriageModel;
  wallMs: number;
  cpuMs: number;
}

function train(tickets: CorpusTicket[], options: Partial<TrainOptions> = {}): Trained {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const model = trainTriageModel(CORPUS_SCHEMA, tickets, options);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { model, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

function quality(model: TriageModel, tickets: CorpusTicket[], threshold = SET_THRESHOLD): Evaluation {
  return evaluate(CORPUS_SCHEMA, tickets, tickets.map((t) => classifyTicket(model, t, { set: threshold })), threshold);
}

export async function triageSuite(): Promise<SuiteResult> {
  const corpus = readCorpusFile();
  const training = corpus.filter((t) => t.id % 5 !== 0);
  const heldOut = corpus.filter((t) => t.id % 5 === 0);
  progress(`triage: ${training.length} training tickets, ${heldOut.length} held out`);

  const sliced = train(training);
  progress(`triage: trained in ${sliced.wallMs.toFixed(0)} ms (${sliced.model.slices.size} slices)`);
  const companyOnly = train(training, { minGameTickets: Infinity, minLanguageTickets: Infinity });
  // Slices kept by size alone (every head of every slice with enough tickets), for comparison.
  const keepAll = { minGain: -Infinity, minHeldOutToCompare: 0 };
  const everySlice = train(training, keepAll);
  const gameSlices = train(training, { ...keepAll, minLanguageTickets: Infinity });
  // No held-out share: every training ticket learned from, no calibration (and so no slice can
  // prove itself: one company model).
  const uncalibrated = train(training, { minTicketsToCalibrate: Infinity });
  // Whether the character trigrams earn their place.
  const noTrigrams = train(training, { features: { ...DEFAULT_TRAIN_OPTIONS.features, charGramsFromLength: 0 } });

  // As a service would: the model stored as JSON, read back, then used.
  const json = JSON.stringify(serializeTriageModel(sliced.model));
  const loadStarted = performance.now();
  const model = loadTriageModel(JSON.parse(json));
  classifyTicket(model, heldOut[0]!, { set: SET_THRESHOLD });
  const loadMs = performance.now() - loadStarted;

  const evaluation = quality(model, heldOut);
  const companyEvaluation = quality(companyOnly.model, heldOut);
  const variants = [
    { name: "slices kept where they beat the level above (the default)", trained: sliced, evaluation },
    { name: "one company-wide model", trained: companyOnly, evaluation: companyEvaluation },
    { name: "company + every game with 300 tickets, all heads", trained: gameSlices, evaluation: quality(gameSlices.model, heldOut) },
    { name: "company + every game and (game, language) with 300 tickets, all heads", trained: everySlice, evaluation: quality(everySlice.model, heldOut) },
    { name: "the default without character trigrams", trained: noTrigrams, evaluation: quality(noTrigrams.model, heldOut) },
    { name: "no held-out share, no calibration (one company model on every training ticket)", trained: uncalibrated, evaluation: quality(uncalibrated.model, heldOut) },
  ].map((v) => ({
    name: v.name,
    slices: v.trained.model.slices.size,
    trainingCpuMs: v.trained.cpuMs,
    jsonBytes: JSON.stringify(serializeTriageModel(v.trained.model)).length,
    macro: v.evaluation.macro,
    setTagPrecision: v.evaluation.set.tagPrecision,
    setTagCoverage: v.evaluation.set.tagCoverage,
    tagCalibration: v.evaluation.tagCalibration,
  }));
  const setByThreshold = THRESHOLDS.map((threshold) => quality(model, heldOut, threshold).set);
  const languages = [...new Set(heldOut.map((t) => t.language))];
  const byLanguage = languages.map((language) => {
    const tickets = heldOut.filter((t) => t.language === language);
    return { language, tickets: tickets.length, macroTagF1: quality(model, tickets).macro.tagF1 };
  });

  // Cost per new ticket: one warm-up pass, then TIMING_PASSES passes, each call timed alone.
  for (const ticket of heldOut) classifyTicket(model, ticket, { set: SET_THRESHOLD });
  // Wall time of each call, and its CPU time (getrusage, µs): on a shared machine a call can wait
  // for a core, which its wall time counts and its CPU time does not.
  const micros: number[] = [];
  const cpuMicros: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let pass = 0; pass < TIMING_PASSES; pass++) {
    for (const ticket of heldOut) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      classifyTicket(model, ticket, { set: SET_THRESHOLD });
      micros.push(Number(process.hrtime.bigint() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpuMicros.push(c.user + c.system);
    }
  }
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuPerCallUs = (used.user + used.system) / micros.length;
  micros.sort((a, b) => a - b);
  cpuMicros.sort((a, b) => a - b);
  const p50 = percentile(micros, 50);
  const p99 = percentile(micros, 99);
  const cpuP50 = percentile(cpuMicros, 50);
  const cpuP99 = percentile(cpuMicros, 99);
  const mean = micros.reduce((a, b) => a + b, 0) / micros.length;
  const characters = heldOut.reduce((sum, t) => sum + t.subject.length + t.messages.join("\n").length, 0) / heldOut.length;

  const gzipBytes = gzipSync(json).length;
  const rows: Row[] = [
    {
      name: "classifyTicket",
      connections: 1,
      requestsPerSecond: Math.round((micros.length / elapsedMs) * 1000),
      p50: p50 / 1000,
      p99: p99 / 1000,
      mean: mean / 1000,
      errors: 0,
      non2xx: 0,
      requests: micros.length,
      p50Micros: p50,
      p99Micros: p99,
      cpuMicrosPerCall: cpuPerCallUs,
      cpuP50Micros: cpuP50,
      cpuP99Micros: cpuP99,
      meanCharacters: characters,
    },
  ];

  const tagTable = [
    `| tag | held-out tickets with it | precision | recall | F1 |`,
    `|---|---|---|---|---|`,
    ...evaluation.tags.map((t) => `| ${t.name} | ${t.support} | ${fixed(t.precision)} | ${fixed(t.recall)} | ${fixed(t.f1)} |`),
    `| **macro** | | ${fixed(evaluation.macro.tagPrecision)} | ${fixed(evaluation.macro.tagRecall)} | ${fixed(evaluation.macro.tagF1)} |`,
  ].join("\n");
  const fieldTable = [
    `| field = value | held-out tickets with it | precision | recall | F1 |`,
    `|---|---|---|---|---|`,
    ...evaluation.fields.flatMap((f) => [
      ...f.values.map((v) => `| ${f.key} = ${v.name} | ${v.support} | ${fixed(v.precision)} | ${fixed(v.recall)} | ${fixed(v.f1)} |`),
      `| **${f.key}: accuracy** | ${f.tickets} | | | ${fixed(f.accuracy)} |`,
    ]),
    `| **macro F1 of the values** | | | | ${fixed(evaluation.macro.fieldValueF1)} |`,
  ].join("\n");
  const setTable = [
    `| set threshold | tags set: precision | share of the tags agents set that the triage set right | fields set: precision | share of field values set right |`,
    `|---|---|---|---|---|`,
    ...setByThreshold.map((s) => `| ${s.threshold} | ${percent(s.tagPrecision)} % | ${percent(s.tagCoverage)} % | ${percent(s.fieldPrecision)} % | ${percent(s.fieldCoverage)} % |`),
  ].join("\n");
  const languageTable = [`| language | held-out tickets | macro F1 of the tags |`, `|---|---|---|`, ...byLanguage.map((l) => `| ${l.language} | ${l.tickets} | ${fixed(l.macroTagF1)} |`)].join("\n");
  const slices = [...model.slices.values()].map((s) => `${s.key} (${s.tickets} tickets: ${s.weights.heads.map((h) => h.name).join(", ")})`);
  const costTable = [
    `| measure | value |`,
    `|---|---|`,
    `| training (${training.length} tickets, all slices) | ${sliced.wallMs.toFixed(0)} ms wall, ${sliced.cpuMs.toFixed(0)} ms CPU |`,
    `| model kept (slices) | ${model.slices.size}: company${model.slices.size > 1 ? ` + ${model.slices.size - 1} game or language slices` : ""} |`,
    `| model as JSON | ${(json.length / 1024).toFixed(0)} KiB (${(gzipBytes / 1024).toFixed(0)} KiB gzip) |`,
    `| load (JSON.parse + loadTriageModel + first call) | ${loadMs.toFixed(1)} ms |`,
    `| classification per ticket (${micros.length} calls, mean ${characters.toFixed(0)} characters) | CPU p50 ${cpuP50.toFixed(0)} µs, p99 ${cpuP99.toFixed(0)} µs, mean ${cpuPerCallUs.toFixed(1)} µs (timing included); wall p50 ${p50.toFixed(1)} µs, p99 ${p99.toFixed(1)} µs |`,
  ].join("\n");
  const variantTable = [
    `| models | slices | training CPU | JSON | macro F1 tags | macro F1 field values | tags set at ${SET_THRESHOLD}: precision, coverage | tag probabilities: calibration error, Brier |`,
    `|---|---|---|---|---|---|---|---|`,
    ...variants.map(
      (v) =>
        `| ${v.name} | ${v.slices} | ${v.trainingCpuMs.toFixed(0)} ms | ${(v.jsonBytes / 1024).toFixed(0)} KiB | ${fixed(v.macro.tagF1)} | ${fixed(v.macro.fieldValueF1)} | ${percent(v.setTagPrecision)} %, ${percent(v.setTagCoverage)} % | ${fixed(v.tagCalibration.expectedError)}, ${fixed(v.tagCalibration.brier)} |`,
    ),
  ].join("\n");
  const table = [
    `### Tags (probability >= 0.5), held-out tickets`,
    tagTable,
    `### Fields (the most probable value)`,
    fieldTable,
    `### What "set" would do`,
    setTable,
    `### Per language`,
    languageTable,
    `### Cost`,
    costTable,
    `### Slices`,
    variantTable,
    ``,
    `Slices kept: ${slices.join("; ")}`,
  ].join("\n\n");
  return {
    rows,
    table,
    details: {
      corpus: { tickets: corpus.length, training: training.length, heldOut: heldOut.length },
      trainOptions: DEFAULT_TRAIN_OPTIONS,
      training: { wallMs: sliced.wallMs, cpuMs: sliced.cpuMs },
      model: { jsonBytes: json.length, gzipBytes, loadMs, slices },
      classification: { calls: micros.length, p50Micros: p50, p99Micros: p99, meanMicros: mean, cpuMicrosPerCall: cpuPerCallUs, cpuP50Micros: cpuP50, cpuP99Micros: cpuP99 },
      evaluation,
      variants,
      setByThreshold,
      byLanguage,
    },
  };
}
