// The tickets service's configuration, from environment variables only.
import { createHmac } from "node:crypto";
import { ConfigError, loadConfig, num, str } from "@support/config";
import { adminTokenSpec, portSpec, rpcClientConfigSpecs, serviceConfigSpecs } from "@support/runtime";
import { idempotencyConfigSpecs } from "@support/idempotency";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...idempotencyConfigSpecs,
  ...rpcClientConfigSpecs,
  PORT: portSpec(50052),
  ADMIN_TOKEN: adminTokenSpec,
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers" }),
  PLAYERS_URL: str({ default: "http://127.0.0.1:50054", desc: "Where the players service answers" }),
  MEDIA_URL: str({ default: "http://127.0.0.1:50053", desc: "Where the media service answers (attachments of new tickets)" }),
  WEBHOOKS_URL: str({ default: "http://127.0.0.1:50055", desc: "Where the webhooks service answers (the URLs of rules' callWebhook actions, checked when a rule is saved)" }),
  RPC_TIMEOUT_MS: num({ default: 10_000, desc: "Deadline of each call to another service" }),
  SUPPORT_APP_URL: str({ default: "https://support.example.com/app", desc: "The support application's address (the console, served by the gateway at /app): a ticket's url is <SUPPORT_APP_URL>/tickets/<id>, which opens the ticket there" }),
  NODE_ENV: str({ default: "development", desc: "production makes CURSOR_SECRET required" }),
  CURSOR_SECRET: str({
    default: "",
    desc: "HMAC key of GET /tickets cursors; the same on every replica; required in production. Empty: derived from DATABASE_URL (development only)",
  }),
  CONTENT_CACHE_TTL_MS: num({ default: 30_000, desc: "Longest staleness of cached company settings, games, tags and fields" }),
  CONTENT_CACHE_MAX_ENTRIES: num({ default: 10_000, desc: "Most cached content entries (three per company and one per game used); the least recently used go first" }),
  AUTO_CLOSE_INTERVAL_MS: num({ default: 60_000, desc: "Period of the sweep closing waiting tickets (0 disables it)" }),
  TRIAGE_TRAIN_INTERVAL_MS: num({ default: 86_400_000, desc: "Period of the triage's training of every company's model on its resolved tickets (0 disables it)" }),
  RULES_SWEEP_INTERVAL_MS: num({ default: 60_000, desc: "Period of the sweep running time rules (0 disables it)" }),
  SLA_SWEEP_INTERVAL_MS: num({ default: 30_000, desc: "Period of the sweep announcing SLA warnings and breaches (0 disables it); a notice comes at most this late" }),
};

function loadRaw(env: Record<string, string | undefined>) {
  return loadConfig(configSpecs, env);
}

export type TicketsConfig = ReturnType<typeof loadRaw> & { readonly cursorSecret: string };

export function loadTicketsConfig(env: Record<string, string | undefined> = process.env): TicketsConfig {
  const raw = loadRaw(env);
  // 0 would make the cache unbounded (lru-cache then limits by TTL only).
  if (!Number.isInteger(raw.CONTENT_CACHE_MAX_ENTRIES) || raw.CONTENT_CACHE_MAX_ENTRIES < 1) {
    throw new ConfigError("Invalid configuration: CONTENT_CACHE_MAX_ENTRIES must be a positive integer");
  }
  // A key derived from DATABASE_URL is only as secret as that URL, which logs, dashboards and
  // other tools see: a production process refuses to start without a key of its own.
  if (raw.NODE_ENV === "production" && raw.CURSOR_SECRET === "") {
    throw new ConfigError(
      "Invalid configuration: CURSOR_SECRET: required when NODE_ENV=production (the HMAC key of GET /tickets cursors, the same on every replica; e.g. openssl rand -base64 32)",
    );
  }
  return Object.freeze({ ...raw, cursorSecret: cursorSecretOf(raw.CURSOR_SECRET, raw.DATABASE_URL) });
}

/**
 * What the migrate command reads: the database and the log level. The init container that runs
 * it gets no CURSOR_SECRET (migrations never sign a cursor), so the service's own checks, which
 * require that key in production, do not apply to it.
 */
export function loadTicketsMigrateConfig(env: Record<string, string | undefined> = process.env): Pick<TicketsConfig, "DATABASE_URL" | "LOG_LEVEL"> {
  const { DATABASE_URL, LOG_LEVEL } = loadConfig({ DATABASE_URL: configSpecs.DATABASE_URL, LOG_LEVEL: configSpecs.LOG_LEVEL }, env);
  return Object.freeze({ DATABASE_URL, LOG_LEVEL });
}

/**
 * The cursor key: CURSOR_SECRET when set; otherwise a key derived from DATABASE_URL, so that
 * replicas sharing a database (the local stack, tests) agree without configuration. A
 * deployment sets CURSOR_SECRET: the database URL is not a secret everywhere.
 */
export function cursorSecretOf(configured: string, databaseUrl: string): string {
  if (configured !== "") return configured;
  return createHmac("sha256", "tickets-cursor-dev-key").update(databaseUrl).digest("base64url");
}
