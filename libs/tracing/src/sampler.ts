// OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG as the specification names them; the default is
// parentbased_always_on (follow the caller's decision, sample every new trace).
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace-base";

/** The environment variables the OpenTelemetry settings are read from. */
export type Env = Record<string, string | undefined>;

function ratioOf(argument: string | undefined): number {
  const ratio = Number(argument);
  return argument !== undefined && argument.trim() !== "" && Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1;
}

export function samplerOf(env: Env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || "parentbased_always_on";
  const ratio = () => new TraceIdRatioBasedSampler(ratioOf(env.OTEL_TRACES_SAMPLER_ARG));
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
