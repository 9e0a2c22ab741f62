// For tests: the real SDK with every span kept in memory (InMemorySpanExporter), registered
// globally like startTracing does, so code under test traces exactly as in production.
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { registerProvider } from "./tracing.ts";

export type { ReadableSpan };

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Unregisters the provider (and the propagator and context manager). */
  uninstall(): Promise<void>;
}

export async function installInMemoryTracing(serviceName = "test"): Promise<InMemoryTracing> {
  const exporter = new InMemorySpanExporter();
  const unregister = await registerProvider({ resource: { "service.name": serviceName }, processor: new SimpleSpanProcessor(exporter) });
  return { exporter, spans: () => exporter.getFinishedSpans(), uninstall: unregister };
}
