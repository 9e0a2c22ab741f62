// The email service's configuration, from environment variables only (docs/email.md,
// "Settings"). Every setting has a safe local default: without SMTP_URL nothing is sent and
// the mails wait, deferred, until a relay is configured.
import { readFileSync } from "node:fs";
import { DEFAULT_MAX_DELIVERIES } from "@support/bus";
import { ConfigError, loadConfig, num, parseRetrySchedule, str } from "@support/config";
import { portSpec, rpcClientConfigSpecs, serviceConfigSpecs } from "@support/runtime";

/** About a day of retries after the first attempt (seconds). */
export const DEFAULT_RETRY_SCHEDULE = "60,300,900,3600,7200,14400,28800,43200";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...rpcClientConfigSpecs,
  PORT: portSpec(50056),
  NODE_ENV: str({ default: "development", desc: "production: the service refuses to start without SMTP_URL" }),
  TICKETS_URL: str({ default: "http://127.0.0.1:50052", desc: "Where the tickets service answers (a ticket and its conversation)" }),
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (the game's name, the company's sender)" }),
  MEDIA_URL: str({ default: "http://127.0.0.1:50053", desc: "Where the media service answers (it keeps the files of players' mails)" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of each call to another service" }),
  SMTP_URL: str({ default: "", desc: "The SMTP relay mails go through (smtp:// with STARTTLS, smtps://, credentials in the URL); empty: nothing is sent" }),
  MAIL_FROM: str({ default: "Player support <support@localhost>", desc: "The sender address; each mail puts the game's support name in front of it" }),
  WEB_SUPPORT_URL: str({
    default: "http://127.0.0.1:8080/support/",
    desc: "The public address of the web support page (the gateway's /support/): the satisfaction survey's links open its rating page",
  }),
  EMAIL_REPLY_ADDRESS: str({
    default: "",
    desc: "The address players answer to, plus-addressed per ticket (support@example.com -> support+<token>@example.com); empty: replies go to MAIL_FROM",
  }),
  EMAIL_DKIM_DOMAIN: str({ default: "", desc: "DKIM signing domain (d=); with a selector and a key, every mail is signed" }),
  EMAIL_DKIM_SELECTOR: str({ default: "", desc: "DKIM selector (s=): the public key is published at <selector>._domainkey.<domain>" }),
  EMAIL_DKIM_PRIVATE_KEY: str({ default: "", desc: "DKIM private key (PEM)" }),
  EMAIL_DKIM_KEY_FILE: str({ default: "", desc: "The file holding the DKIM private key (a mounted Secret), read at start" }),
  EMAIL_RETRY_SCHEDULE: str({
    default: DEFAULT_RETRY_SCHEDULE,
    desc: "Seconds between a deferred attempt and the next one, comma-separated; after the last, the mail is failed",
  }),
  EMAIL_CONCURRENCY: num({ default: 4, desc: "Mails being sent at once by one replica" }),
  EMAIL_POLL_INTERVAL_MS: num({ default: 1_000, desc: "How often due mails are looked for (new mails wake the sender at once)" }),
  EMAIL_QUEUE_MAX: num({
    default: 100_000,
    desc: "Mails waiting to be sent (queued or deferred) past which new ones wait in the tickets stream instead of the database",
  }),
  EMAIL_QUOTED_MESSAGES: num({ default: 3, desc: "Earlier messages of the conversation quoted under a reply" }),
  EMAIL_SENDER_CACHE_MS: num({ default: 60_000, desc: "How long a company's own sender (content.GetCompany) is remembered: an edit shows on mails queued after it" }),
  EMAIL_SMTP_HOST: str({ default: "127.0.0.1", desc: "Address the SMTP listener of players' answers binds to (0.0.0.0 in a cluster)" }),
  EMAIL_SMTP_PORT: num({ default: 2525, desc: "Port of the SMTP listener that takes players' answers (the MX or the relay forwards to it); it runs only with EMAIL_REPLY_ADDRESS; 0: any free port" }),
  EMAIL_INBOUND_MAX_BYTES: num({ default: 26_214_400, desc: "Largest mail the listener takes (25 MiB); larger ones are refused during the transfer" }),
  EMAIL_INBOUND_PER_SENDER_PER_HOUR: num({ default: 20, desc: "Mails taken from one address per hour; past it they are dropped (mail loops)" }),
  EMAIL_INBOUND_PER_TICKET_PER_HOUR: num({ default: 30, desc: "Mails taken for one ticket per hour; past it they are dropped" }),
  EMAIL_INBOUND_RETENTION_DAYS: num({ default: 30, desc: "Held and dropped mails are forgotten after this many days (accepted ones stay with their ticket)" }),
  EVENT_MAX_DELIVERIES: num({
    default: DEFAULT_MAX_DELIVERIES,
    desc: "Deliveries of a tickets event whose handling keeps failing before it goes to the dead-letter store; 0: retried for ever",
  }),
};

function loadRaw(env: Record<string, string | undefined>) {
  return loadConfig(configSpecs, env);
}

export type EmailConfig = ReturnType<typeof loadRaw>;

function checkRanges(config: EmailConfig): string[] {
  const problems: string[] = [];
  for (const name of ["EMAIL_CONCURRENCY", "EMAIL_POLL_INTERVAL_MS", "EMAIL_QUEUE_MAX", "EMAIL_INBOUND_MAX_BYTES", "EMAIL_INBOUND_PER_SENDER_PER_HOUR", "EMAIL_INBOUND_PER_TICKET_PER_HOUR", "EMAIL_INBOUND_RETENTION_DAYS", "EMAIL_SENDER_CACHE_MS"] as const) {
    if (!Number.isInteger(config[name]) || config[name] < 1) problems.push(`${name}: must be a positive integer`);
  }
  if (!Number.isInteger(config.EMAIL_SMTP_PORT) || config.EMAIL_SMTP_PORT < 0 || config.EMAIL_SMTP_PORT > 65535) problems.push("EMAIL_SMTP_PORT: must be a port (0: any free one)");
  if (!Number.isInteger(config.EMAIL_QUOTED_MESSAGES) || config.EMAIL_QUOTED_MESSAGES < 0) problems.push("EMAIL_QUOTED_MESSAGES: must be 0 or a positive integer");
  if (!Number.isInteger(config.EVENT_MAX_DELIVERIES) || config.EVENT_MAX_DELIVERIES < 0) problems.push("EVENT_MAX_DELIVERIES: must be 0 or a positive integer");
  try {
    parseRetrySchedule(config.EMAIL_RETRY_SCHEDULE);
  } catch (error) {
    problems.push(`EMAIL_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
  if (!URL.canParse(config.WEB_SUPPORT_URL) || !/^https?:$/.test(new URL(config.WEB_SUPPORT_URL).protocol)) problems.push("WEB_SUPPORT_URL: must be an http(s) URL");
  if (config.EMAIL_REPLY_ADDRESS !== "" && !/^[^@\s+]+@[^@\s]+$/.test(config.EMAIL_REPLY_ADDRESS)) {
    problems.push("EMAIL_REPLY_ADDRESS: must be a plain address without '+' (local@domain)");
  }
  const dkim = [config.EMAIL_DKIM_DOMAIN, config.EMAIL_DKIM_SELECTOR, config.EMAIL_DKIM_PRIVATE_KEY || config.EMAIL_DKIM_KEY_FILE];
  if (dkim.some((value) => value !== "") && dkim.some((value) => value === "")) {
    problems.push("EMAIL_DKIM_DOMAIN, EMAIL_DKIM_SELECTOR and EMAIL_DKIM_PRIVATE_KEY (or EMAIL_DKIM_KEY_FILE): set all three or none");
  }
  if (config.NODE_ENV === "production" && config.SMTP_URL === "") problems.push("SMTP_URL: required when NODE_ENV=production");
  return problems;
}

/** The DKIM settings, the key read from its file when given as one; undefined when DKIM is off. */
export function dkimOf(config: EmailConfig): { domainName: string; keySelector: string; privateKey: string } | undefined {
  if (config.EMAIL_DKIM_DOMAIN === "") return undefined;
  const privateKey = config.EMAIL_DKIM_PRIVATE_KEY !== "" ? config.EMAIL_DKIM_PRIVATE_KEY : readFileSync(config.EMAIL_DKIM_KEY_FILE, "utf8");
  return { domainName: config.EMAIL_DKIM_DOMAIN, keySelector: config.EMAIL_DKIM_SELECTOR, privateKey };
}

/** What the migrate command reads: the database and the log level. */
export function loadEmailMigrateConfig(env: Record<string, string | undefined> = process.env): Pick<EmailConfig, "DATABASE_URL" | "LOG_LEVEL"> {
  const { DATABASE_URL, LOG_LEVEL } = loadConfig({ DATABASE_URL: configSpecs.DATABASE_URL, LOG_LEVEL: configSpecs.LOG_LEVEL }, env);
  return Object.freeze({ DATABASE_URL, LOG_LEVEL });
}

export function loadEmailConfig(env: Record<string, string | undefined> = process.env): EmailConfig {
  const config = loadRaw(env);
  const problems = checkRanges(config);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
