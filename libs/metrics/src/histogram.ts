// A duration histogram whose series are resolved once. prom-client's Histogram validates and
// hashes the label object on every observation; on the gateway's cached reads that was one to
// two microseconds of a request's forty. Here `series(labels)` is looked up once per label set
// (callers keep it), and an observation is a bucket search and three additions. The histogram
// is registered in the same prom-client registry and scraped in the same text format.
import type { Registry } from "prom-client";

/** The recorder of one label set. */
export interface HistogramSeries {
  observe(value: number): void;
}

interface SeriesState<L extends string> extends HistogramSeries {
  readonly labels: Readonly<Record<L, string>>;
  /** Per bucket, the observations at most its bound and above the previous one; the last is +Inf. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export interface SeriesHistogramOptions<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds in increasing order; +Inf is added. */
  buckets: readonly number[];
  registers: Registry[];
}

/** The scrape form prom-client's registry formats (its `get()` contract). */
interface MetricValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

export class SeriesHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly labelNames: readonly L[];
  private readonly bounds: Float64Array;
  private readonly byKey = new Map<string, SeriesState<L>>();

  constructor(options: SeriesHistogramOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.bounds = Float64Array.from(options.buckets);
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  /** The series of `labels` (every label name, no other), made on first use. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join("\u0000");
    let found = this.byKey.get(key);
    if (found === undefined) {
      for (const name of Object.keys(labels)) {
        if (!this.labelNames.includes(name as L)) throw new Error(`${this.name} has no label ${name}`);
      }
      found = this.createSeries({ ...labels });
      this.byKey.set(key, found);
    }
    return found;
  }

  /** One observation; for repeated label sets keep `series(labels)` instead. */
  observe(labels: Readonly<Record<L, string>>, value: number): void {
    this.series(labels).observe(value);
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    for (const series of this.byKey.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += series.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: i < this.bounds.length ? this.bounds[i]! : "+Inf" }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Zeroes every series; the recorders callers keep stay valid. */
  reset(): void {
    for (const series of this.byKey.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  private createSeries(labels: Record<L, string>): SeriesState<L> {
    const bounds = this.bounds;
    const state: SeriesState<L> = {
      labels,
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
      observe(value: number) {
        if (!Number.isFinite(value)) return;
        let i = 0;
        while (i < bounds.length && value > bounds[i]!) i++;
        state.counts[i]! += 1;
        state.sum += value;
        state.count += 1;
      },
    };
    return state;
  }
}
