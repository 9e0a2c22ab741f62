// The players service's configuration, from environment variables only.
import { loadConfig, num, str } from "@support/config";
import { portSpec, serviceConfigSpecs } from "@support/runtime";

export const configSpecs = {
  ...serviceConfigSpecs,
  PORT: portSpec(50054),
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (environment tokens, JWKS, fields)" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of each call to another service" }),
  SESSION_TTL_SECONDS: num({ default: 86_400, desc: "Lifetime of a web support session (D8: 24 hours)" }),
  EXPIRY_SWEEP_INTERVAL_MS: num({ default: 60_000, desc: "Period of the sweep deleting expired sessions and ended rate-limit windows (0 disables it)" }),
};

export type PlayersConfig = ReturnType<typeof loadPlayersConfig>;

export function loadPlayersConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
