// The content service's configuration, from environment variables only.
import { DEFAULT_MAX_DELIVERIES } from "@support/bus";
import { ConfigError, loadConfig, num, str } from "@support/config";
import { adminTokenSpec, portSpec, serviceConfigSpecs } from "@support/runtime";
import { idempotencyConfigSpecs } from "@support/idempotency";
import { parseTotpEncryptionKey } from "./agents/two-factor-secret-box.ts";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...idempotencyConfigSpecs,
  PORT: portSpec(50051),
  ADMIN_TOKEN: adminTokenSpec,
  EVENT_MAX_DELIVERIES: num({
    default: DEFAULT_MAX_DELIVERIES,
    desc: "Deliveries of another service's audit entry (webhooks.audit.recorded, players.audit.recorded) whose recording keeps failing before it goes to the dead-letter store; 0: retried for ever",
  }),
  // The support application's sign-in (docs/agents.md).
  AGENT_SESSION_IDLE_SECONDS: num({ default: 43_200, desc: "A support application session unused this long ends (12 hours)" }),
  AGENT_AWAY_AFTER_SECONDS: num({
    default: 300,
    desc: "An available user none of whose sessions was used this long (the console closed without signing out) is set away for routing (0: never); an open console uses its session every minute",
  }),
  AGENT_AWAY_SWEEP_INTERVAL_MS: num({ default: 30_000, desc: "How often content looks for available users whose consoles went quiet (AGENT_AWAY_AFTER_SECONDS)" }),
  AGENT_SESSION_MAX_SECONDS: num({ default: 604_800, desc: "A support application session ends this long after sign-in, used or not (7 days)" }),
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: num({ default: 5, desc: "Failed sign-ins to one email within SIGN_IN_FAILURE_WINDOW_MINUTES that lock it" }),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS: num({ default: 50, desc: "Failed sign-ins from one client address within the window that lock the address" }),
  SIGN_IN_FAILURE_WINDOW_MINUTES: num({ default: 15, desc: "The window failed sign-ins are counted in" }),
  SIGN_IN_LOCK_MINUTES: num({ default: 15, desc: "How long a locked account or address is refused" }),
  SUPPORT_APP_URL: str({ default: "https://support.example.com/app", desc: "The support application's address (the console, served by the gateway at /app): invitation and password-reset links are <SUPPORT_APP_URL>/welcome#token=… and <SUPPORT_APP_URL>/reset-password#token=…" }),
  SMTP_URL: str({ default: "", desc: "SMTP server of outgoing mail (smtp://user:pass@host:587, smtps://...:465); empty: links are only printed by pnpm admin" }),
  MAIL_FROM: str({ default: "Player support <support@localhost>", desc: "From address of the mails sent to users (invitations, password resets)" }),
  // Two-factor (docs/agents.md, "Two-factor").
  TOTP_ENCRYPTION_KEY: str({
    default: "",
    desc: "Base64 of 32 random bytes: the AES-256-GCM key the users' TOTP secrets are encrypted with at rest; required in production (empty elsewhere: a public development key)",
  }),
  TOTP_ISSUER: str({ default: "Player Support", desc: "The issuer name authenticator apps show beside the user's email" }),
  // Single sign-on (docs/agents.md, "Single sign-on").
  SSO_CLIENTS_DIR: str({
    default: "",
    desc: "Directory of the companies' OpenID client secrets, one file per key a tenant file's singleSignOn.clientSecretKey names (the Secret content-sso mounted read-only); empty: no single sign-on",
  }),
};

function loadRaw(env: Record<string, string | undefined>) {
  return loadConfig(configSpecs, env);
}

export type ContentConfig = ReturnType<typeof loadRaw>;

function checkTwoFactor(config: ContentConfig): string[] {
  if (config.TOTP_ENCRYPTION_KEY === "") return config.NODE_ENV === "production" ? ["TOTP_ENCRYPTION_KEY: required when NODE_ENV=production"] : [];
  try {
    parseTotpEncryptionKey(config.TOTP_ENCRYPTION_KEY);
    return [];
  } catch (error) {
    return [`TOTP_ENCRYPTION_KEY: ${(error as Error).message}`];
  }
}

export function loadContentConfig(env: Record<string, string | undefined> = process.env): ContentConfig {
  const config = loadRaw(env);
  const problems = checkTwoFactor(config);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}

/**
 * What the migrate command reads: the database and the log level. The Job that runs it gets no
 * TOTP_ENCRYPTION_KEY (migrations never touch a secret), so the service's own checks, which
 * require that key in production, do not apply to it.
 */
export function loadContentMigrateConfig(env: Record<string, string | undefined> = process.env): Pick<ContentConfig, "DATABASE_URL" | "LOG_LEVEL"> {
  const { DATABASE_URL, LOG_LEVEL } = loadConfig({ DATABASE_URL: configSpecs.DATABASE_URL, LOG_LEVEL: configSpecs.LOG_LEVEL }, env);
  return Object.freeze({ DATABASE_URL, LOG_LEVEL });
}
