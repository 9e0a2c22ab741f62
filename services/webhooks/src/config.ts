// The webhooks service's configuration, from environment variables only (docs/webhooks.md,
// "Settings"). Every delivery setting has a production default; the ones that loosen the
// outbound safety rules (plain http, private targets) are for local use and tests only.
import { DEFAULT_MAX_DELIVERIES } from "@support/bus";
import { bool, ConfigError, loadConfig, num, str } from "@support/config";
import { idempotencyConfigSpecs } from "@support/idempotency";
import { adminTokenSpec, portSpec, rpcClientConfigSpecs, serviceConfigSpecs } from "@support/runtime";
import { parseRetrySchedule } from "./deliveries/delivery.ts";
import { parseSecretsKey } from "./security/secret-box.ts";

/** About three days of retries after the first attempt (seconds). */
export const DEFAULT_RETRY_SCHEDULE = "5,300,1800,7200,18000,36000,50400,72000,86400";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...rpcClientConfigSpecs,
  ...idempotencyConfigSpecs,
  PORT: portSpec(50055),
  ADMIN_TOKEN: adminTokenSpec,
  NODE_ENV: str({ default: "development", desc: "production makes WEBHOOK_SECRETS_KEY required and refuses WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_TARGETS" }),
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (games of a company)" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of each call to another service" }),
  WEBHOOK_SECRETS_KEY: str({
    default: "",
    desc: "Base64 of 32 random bytes: the AES-256-GCM key the signing secrets are encrypted with at rest; required in production",
  }),
  WEBHOOK_TIMEOUT_MS: num({ default: 10_000, desc: "Longest wait for a receiver's answer (connect, headers and body)" }),
  WEBHOOK_RETRY_SCHEDULE: str({
    default: DEFAULT_RETRY_SCHEDULE,
    desc: "Seconds between a failed attempt and the next one, comma-separated; after the last, the delivery is failed",
  }),
  WEBHOOK_RETRY_AFTER_MAX_SECONDS: num({ default: 86_400, desc: "Cap on a receiver's Retry-After" }),
  WEBHOOK_DISABLE_AFTER_HOURS: num({ default: 120, desc: "A subscription whose deliveries all fail for this long is disabled" }),
  WEBHOOK_CONCURRENCY: num({ default: 32, desc: "Deliveries in flight at once in one replica" }),
  WEBHOOK_PER_WEBHOOK_CONCURRENCY: num({ default: 4, desc: "Deliveries in flight at once to one subscription, across replicas" }),
  WEBHOOK_POLL_INTERVAL_MS: num({ default: 500, desc: "How often due deliveries are looked for (new events wake the engine at once)" }),
  WEBHOOK_LOG_RETENTION_DAYS: num({ default: 30, desc: "Finished deliveries (succeeded, failed) are deleted from the log after this many days" }),
  WEBHOOK_LOG_SWEEP_INTERVAL_MS: num({ default: 3_600_000, desc: "Period of the sweep of old deliveries (0 disables it)" }),
  EVENT_MAX_DELIVERIES: num({
    default: DEFAULT_MAX_DELIVERIES,
    desc: "Deliveries of a domain event whose handling keeps failing before it goes to the dead-letter store (25: about 20 minutes of retries); 0: retried for ever",
  }),
  WEBHOOK_ALLOW_HTTP: bool({ default: false, desc: "Accept http:// URLs (local use only; refused in production)" }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool({
    default: false,
    desc: "Deliver to loopback and private addresses, never link-local or metadata ones (local use and tests only: it opens the service to SSRF; refused in production)",
  }),
};

function loadRaw(env: Record<string, string | undefined>) {
  return loadConfig(configSpecs, env);
}

export type WebhooksConfig = ReturnType<typeof loadRaw>;

function checkRanges(config: WebhooksConfig): string[] {
  const problems: string[] = [];
  const positive = (name: keyof WebhooksConfig) => {
    if (!((config[name] as number) > 0)) problems.push(`${name}: must be positive`);
  };
  positive("WEBHOOK_TIMEOUT_MS");
  positive("WEBHOOK_DISABLE_AFTER_HOURS");
  positive("WEBHOOK_POLL_INTERVAL_MS");
  positive("WEBHOOK_RETRY_AFTER_MAX_SECONDS");
  positive("WEBHOOK_LOG_RETENTION_DAYS");
  if (!(config.WEBHOOK_LOG_SWEEP_INTERVAL_MS >= 0)) problems.push("WEBHOOK_LOG_SWEEP_INTERVAL_MS: must be 0 or positive");
  if (!Number.isInteger(config.EVENT_MAX_DELIVERIES) || config.EVENT_MAX_DELIVERIES < 0) problems.push("EVENT_MAX_DELIVERIES: must be 0 or a positive integer");
  for (const name of ["WEBHOOK_CONCURRENCY", "WEBHOOK_PER_WEBHOOK_CONCURRENCY"] as const) {
    if (!Number.isInteger(config[name]) || config[name] < 1) problems.push(`${name}: must be a positive integer`);
  }
  try {
    parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE);
  } catch (error) {
    problems.push(`WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
  // The settings that loosen target safety open the service to SSRF: a production process
  // refuses to start with them rather than run unsafe because a local value leaked in.
  if (config.NODE_ENV === "production") {
    for (const name of ["WEBHOOK_ALLOW_HTTP", "WEBHOOK_ALLOW_PRIVATE_TARGETS"] as const) {
      if (config[name]) problems.push(`${name}: must not be set when NODE_ENV=production (local use and tests only)`);
    }
  }
  if (config.WEBHOOK_SECRETS_KEY === "") {
    if (config.NODE_ENV === "production") problems.push("WEBHOOK_SECRETS_KEY: required when NODE_ENV=production");
  } else {
    try {
      parseSecretsKey(config.WEBHOOK_SECRETS_KEY);
    } catch (error) {
      problems.push(`WEBHOOK_SECRETS_KEY: ${(error as Error).message}`);
    }
  }
  return problems;
}

/**
 * What the migrate command reads: the database and the log level. The init container that runs
 * it gets no WEBHOOK_SECRETS_KEY (migrations never touch a secret), so the service's own checks,
 * which require that key in production, do not apply to it.
 */
export function loadWebhooksMigrateConfig(env: Record<string, string | undefined> = process.env): Pick<WebhooksConfig, "DATABASE_URL" | "LOG_LEVEL"> {
  const { DATABASE_URL, LOG_LEVEL } = loadConfig({ DATABASE_URL: configSpecs.DATABASE_URL, LOG_LEVEL: configSpecs.LOG_LEVEL }, env);
  return Object.freeze({ DATABASE_URL, LOG_LEVEL });
}

export function loadWebhooksConfig(env: Record<string, string | undefined> = process.env): WebhooksConfig {
  const config = loadRaw(env);
  const problems = checkRanges(config);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
