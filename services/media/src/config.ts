// The media service's configuration, from environment variables only.
import { loadConfig } from "@support/config";
import { portSpec, serviceConfigSpecs } from "@support/runtime";

export const configSpecs = { ...serviceConfigSpecs, PORT: portSpec(50053) };

export type MediaConfig = ReturnType<typeof loadMediaConfig>;

export function loadMediaConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
