export { registerProvider, resourceAttributesOf, startTracing, tracesEndpoint, tracingRequested, type Env, type Tracing, type TracingSettings } from "./tracing.ts";
