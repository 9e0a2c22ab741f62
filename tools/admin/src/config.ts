// The admin tool's settings, from environment variables only. It talks to the services over
// their admin RPCs; the token comes from ADMIN_TOKEN or, without it, from ADMIN_TOKEN_FILE
// (the local stack of `make up` writes .data/admin-token). Its calls also carry the service
// identity `admin` (SERVICE_IDENTITY_KEY, or the file make up writes): the admin services want both.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ConfigError, loadConfig, num, str } from "@support/config";
import { loadServiceCaller, type ServiceCaller } from "@support/rpc";

export const configSpecs = {
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (Connect)" }),
  PLAYERS_URL: str({ default: "http://127.0.0.1:50054", desc: "Where the players service answers (Connect)" }),
  WEBHOOKS_URL: str({ default: "http://127.0.0.1:50055", desc: "Where the webhooks service answers (Connect); only `apply` of a file with `webhooks` calls it" }),
  TICKETS_URL: str({
    default: "http://127.0.0.1:50052",
    desc: "Where the tickets service answers (Connect); only `apply` of a file with `rules`, `sla`, `triage` or `outbreaks` calls it",
  }),
  ADMIN_TOKEN: str({ default: "", desc: "The services' admin token (their ADMIN_TOKEN)" }),
  ADMIN_TOKEN_FILE: str({ default: ".data/admin-token", desc: "Read for the token when ADMIN_TOKEN is unset (relative to the working directory)" }),
  SERVICE_IDENTITY_KEY: str({ default: "", desc: "The admin tool's service identity key (PKCS#8 PEM Ed25519), trusted by the services as `admin`" }),
  SERVICE_IDENTITY_KEY_FILE: str({
    default: ".data/service-identity/admin.key",
    desc: "Read for the key when SERVICE_IDENTITY_KEY is unset (relative to the working directory; written by make up)",
  }),
  NODE_ENV: str({ default: "development", desc: "production requires the identity key" }),
  RPC_TIMEOUT_MS: num({ default: 30_000, desc: "Deadline of each call" }),
  PLAYERS_ATTEMPTS: num({ default: 5, desc: "Attempts at the players part of `apply` before giving up" }),
  RETRY_DELAY_MS: num({ default: 500, desc: "First delay between attempts; doubled after each" }),
  LOG_LEVEL: str({ default: "info", choices: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] }),
};

export interface AdminConfig {
  contentUrl: string;
  playersUrl: string;
  webhooksUrl: string;
  ticketsUrl: string;
  adminToken: string;
  /** Signs the calls' service identity (`admin`). */
  identity: ServiceCaller;
  timeoutMs: number;
  playersAttempts: number;
  retryDelayMs: number;
  logLevel: string;
}

/** Throws ConfigError for a bad value or when no token is to be found. */
export function loadAdminConfig(env: Record<string, string | undefined>, cwd: string): AdminConfig {
  const config = loadConfig(configSpecs, env);
  let token = config.ADMIN_TOKEN.trim();
  if (token === "") {
    const file = isAbsolute(config.ADMIN_TOKEN_FILE) ? config.ADMIN_TOKEN_FILE : resolve(cwd, config.ADMIN_TOKEN_FILE);
    try {
      token = readFileSync(file, "utf8").trim();
    } catch {
      throw new ConfigError(`no admin token: set ADMIN_TOKEN (or ADMIN_TOKEN_FILE; ${file} cannot be read)`);
    }
    if (token === "") throw new ConfigError(`no admin token: ${file} is empty`);
  }
  // The key file's default is make up's; a missing default file leaves a development process
  // with its own process key (services started in the same process, as in tests), while a
  // file named explicitly must be readable.
  const keyFile = isAbsolute(config.SERVICE_IDENTITY_KEY_FILE) ? config.SERVICE_IDENTITY_KEY_FILE : resolve(cwd, config.SERVICE_IDENTITY_KEY_FILE);
  const useKeyFile = Boolean(env.SERVICE_IDENTITY_KEY_FILE?.trim()) || existsSync(keyFile);
  let identity: ServiceCaller;
  try {
    identity = loadServiceCaller("admin", { NODE_ENV: config.NODE_ENV, SERVICE_IDENTITY_KEY: config.SERVICE_IDENTITY_KEY, SERVICE_IDENTITY_KEY_FILE: useKeyFile ? keyFile : "" });
  } catch (error) {
    throw new ConfigError(`no service identity: ${(error as Error).message}`);
  }
  if (config.PLAYERS_ATTEMPTS < 1) throw new ConfigError("Invalid configuration: PLAYERS_ATTEMPTS must be at least 1");
  return {
    contentUrl: config.CONTENT_URL,
    playersUrl: config.PLAYERS_URL,
    webhooksUrl: config.WEBHOOKS_URL,
    ticketsUrl: config.TICKETS_URL,
    adminToken: token,
    identity,
    timeoutMs: config.RPC_TIMEOUT_MS,
    playersAttempts: config.PLAYERS_ATTEMPTS,
    retryDelayMs: config.RETRY_DELAY_MS,
    logLevel: config.LOG_LEVEL,
  };
}
