// Reads the Prometheus text format back into samples: what tests (and tools) assert on.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedMetrics {
  samples: ParsedSample[];
  /** Metric family name -> its TYPE (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): ParsedSample[];
  /** The sum of those samples' values, or undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

function toNumber(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  return Number(text);
}

export function parseMetricsText(text: string): ParsedMetrics {
  const samples: ParsedSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("#")) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(trimmed);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = SAMPLE.exec(trimmed);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? "").matchAll(LABEL)) labels[label[1]!] = unescape(label[2]!);
    samples.push({ name: match[1]!, labels, value: toNumber(match[3]!) });
  }
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return {
    samples,
    types,
    find,
    value(name, labels) {
      const found = find(name, labels);
      return found.length === 0 ? undefined : found.reduce((sum, sample) => sum + sample.value, 0);
    },
  };
}
