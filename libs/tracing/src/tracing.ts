// Turns tracing on for a process when the standard OTEL_* variables ask for it, and leaves the
// OpenTelemetry API's no-op tracer in place otherwise (the SDK is not even loaded then).
import { context, propagation, trace } from "@opentelemetry/api";
import type { Sampler, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Env } from "./sampler.ts";

export interface TracingSettings {
  /** service.name unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  serviceName: string;
  env?: Env;
}

export interface Tracing {
  /** False when the environment did not ask for traces: nothing was registered. */
  readonly enabled: boolean;
  /** Where spans go (the OTLP traces URL), when enabled. */
  readonly endpoint?: string;
  /** Exports the spans still buffered, then unregisters the provider. */
  shutdown(): Promise<void>;
}

/**
 * Whether the environment asks for traces: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) given without naming
 * another exporter; never when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Off by
 * default, unlike the SDK's own default of otlp: a service started without any OTEL_* variable
 * must not try to reach a collector that is not there.
 */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "").split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (exporters.includes("none")) return false;
  if (exporters.includes("otlp")) return true;
  if (exporters.length > 0) return false; // an exporter this project does not ship (console, zipkin, ...)
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** The OTLP/HTTP traces URL: the signal-specific endpoint as it is, else the base endpoint + /v1/traces. */
export function tracesEndpoint(env: Env): string {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || "http://localhost:4318";
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** OTEL_RESOURCE_ATTRIBUTES: `key=value,key=value`, values percent-encoded; malformed pairs are skipped. */
export function resourceAttributesOf(env: Env, serviceName: string): Record<string, string> {
  const attributes: Record<string, string> = { "service.name": serviceName };
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      continue;
    }
  }
  const named = env.OTEL_SERVICE_NAME?.trim();
  if (named) attributes["service.name"] = named;
  return attributes;
}

const disabled: Tracing = { enabled: false, shutdown: async () => undefined };

/**
 * Registers a tracer provider (batching to OTLP over HTTP/protobuf), the W3C trace-context
 * propagator and an AsyncLocalStorage context manager when `tracingRequested(env)`; otherwise
 * registers nothing, so every span the code starts is the API's non-recording no-op. Call it
 * first in main.ts, before any connection is made.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  const env = settings.env ?? process.env;
  if (!tracingRequested(env)) return disabled;
  // Loaded only here: a process without traces never pays for the SDK's import.
  const [{ BatchSpanProcessor }, { OTLPTraceExporter }, { samplerOf }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("./sampler.ts"),
  ]);
  const endpoint = tracesEndpoint(env);
  // Headers, timeout and compression come from the exporter's own OTEL_EXPORTER_OTLP_* reading.
  const exporter = new OTLPTraceExporter({ url: endpoint });
  const unregister = await registerProvider({
    resource: resourceAttributesOf(env, settings.serviceName),
    sampler: samplerOf(env),
    processor: new BatchSpanProcessor(exporter),
  });
  return { enabled: true, endpoint, shutdown: unregister };
}

export interface ProviderSettings {
  resource: Record<string, string>;
  sampler?: Sampler;
  processor: SpanProcessor;
}

/** Registers a provider, the W3C propagator and the context manager; resolves to their shutdown. */
export async function registerProvider(settings: ProviderSettings): Promise<() => Promise<void>> {
  const [{ BasicTracerProvider }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(settings.resource),
    ...(settings.sampler ? { sampler: settings.sampler } : {}),
    spanProcessors: [settings.processor],
  });
  const contextManager = new AsyncLocalStorageContextManager();
  contextManager.enable();
  if (!trace.setGlobalTracerProvider(provider)) throw new Error("a tracer provider is already registered in this process");
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      try {
        await provider.shutdown(); // exports what is still buffered
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    })());
}
