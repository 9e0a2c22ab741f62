// Gauges read when Prometheus scrapes (a pool's counts, a table's backlog, a consumer's info)
// rather than kept up to date on the hot path. Several sources may feed one gauge (their
// samples add up); a source that fails or is slower than its timeout contributes what it
// read last, so a scrape never hangs and never fails because of one source.
import { Gauge, type Registry } from "prom-client";

export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

export interface ScrapeGaugeSpec {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export interface ScrapeSourceOptions {
  /** Longest wait for the source at a scrape (default 2 s). */
  timeoutMs?: number;
  /** Told about a failed or late read; the source's previous samples are used. */
  onError?: (error: unknown) => void;
}

interface Source {
  read: () => Promise<Sample[]> | Sample[];
  last: Sample[];
  timeoutMs: number;
  onError?: ((error: unknown) => void) | undefined;
}

const sourcesByRegistry = new WeakMap<Registry, Map<string, Set<Source>>>();

async function readWithin(source: Source): Promise<Sample[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${source.timeoutMs} ms`)), source.timeoutMs);
    });
    source.last = await Promise.race([Promise.resolve().then(source.read), late]);
  } catch (error) {
    source.onError?.(error);
  } finally {
    clearTimeout(timer);
  }
  return source.last;
}

/**
 * Adds a source to the gauge `spec.name` of `registry` (created at the first source); returns
 * a function that removes the source again (a stopped consumer, a closed pool).
 */
export function addScrapeSource(registry: Registry, spec: ScrapeGaugeSpec, read: Source["read"], options: ScrapeSourceOptions = {}): () => void {
  let gauges = sourcesByRegistry.get(registry);
  if (!gauges) sourcesByRegistry.set(registry, (gauges = new Map()));
  let sources = gauges.get(spec.name);
  if (!sources) {
    const ofGauge = new Set<Source>();
    sources = ofGauge;
    gauges.set(spec.name, ofGauge);
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      async collect() {
        const read = await Promise.all([...ofGauge].map(readWithin));
        this.reset();
        for (const samples of read) for (const sample of samples) this.inc(sample.labels ?? {}, sample.value);
      },
    });
  }
  const source: Source = { read, last: [], timeoutMs: options.timeoutMs ?? 2000, onError: options.onError };
  sources.add(source);
  return () => void sources.delete(source);
}

/**
 * `read` shared by the gauges one query feeds (pending and oldest age of one table): the gauges
 * of one scrape are read together, so a call while a read is in flight gets that read's answer;
 * the next scrape reads again.
 */
export function sharedForScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = undefined;
    }));
}
