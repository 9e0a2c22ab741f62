// The content service's configuration, from environment variables only.
import { loadConfig } from "@support/config";
import { portSpec, serviceConfigSpecs } from "@support/runtime";

export const configSpecs = { ...serviceConfigSpecs, PORT: portSpec(50051) };

export type ContentConfig = ReturnType<typeof loadContentConfig>;

export function loadContentConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
