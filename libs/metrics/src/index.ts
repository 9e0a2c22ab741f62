export { createMetricsRegistry, type Registry } from "./registry.ts";
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from "./server.ts";
export { addScrapeSource, sharedForScrape, type Sample, type ScrapeGaugeSpec, type ScrapeSourceOptions } from "./scrape-gauge.ts";
export {
  DURATION_BUCKETS, eventsDeadLettered, httpServerDuration, jetstreamRedeliveries, jetstreamTerminated, rateLimitRefusals, rateLimitSyncFailures, rpcClientRefusals, rpcClientDuration, rpcServerDuration,
  type HttpLabel, type RpcLabel,
} from "./series.ts";
export { SeriesHistogram, type HistogramSeries } from "./histogram.ts";
export { parseMetricsText, type ParsedMetrics, type ParsedSample } from "./text.ts";
