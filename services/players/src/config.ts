// The players service's configuration, from environment variables only.
import { loadConfig } from "@support/config";
import { portSpec, serviceConfigSpecs } from "@support/runtime";

export const configSpecs = { ...serviceConfigSpecs, PORT: portSpec(50054) };

export type PlayersConfig = ReturnType<typeof loadPlayersConfig>;

export function loadPlayersConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
