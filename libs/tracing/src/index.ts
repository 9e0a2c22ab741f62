export type { Env } from "./sampler.ts";
export { registerProvider, resourceAttributesOf, startTracing, tracesEndpoint, tracingRequested, type Tracing, type TracingSettings } from "./tracing.ts";
