// The tickets service's configuration, from environment variables only.
import { loadConfig } from "@support/config";
import { portSpec, serviceConfigSpecs } from "@support/runtime";

export const configSpecs = { ...serviceConfigSpecs, PORT: portSpec(50052) };

export type TicketsConfig = ReturnType<typeof loadTicketsConfig>;

export function loadTicketsConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
