// The players service's configuration, from environment variables only.
import { ConfigError, loadConfig, num, str } from "@support/config";
import { adminTokenSpec, portSpec, rpcClientConfigSpecs, serviceConfigSpecs } from "@support/runtime";
import { deletionSettingsProblems } from "./deletion/deletion.ts";
import { idempotencyConfigSpecs } from "@support/idempotency";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...idempotencyConfigSpecs,
  ...rpcClientConfigSpecs,
  PORT: portSpec(50054),
  ADMIN_TOKEN: adminTokenSpec,
  CONTENT_URL: str({ default: "http://127.0.0.1:50051", desc: "Where the content service answers (environment tokens, JWKS, fields)" }),
  RPC_TIMEOUT_MS: num({ default: 5_000, desc: "Deadline of each call to another service" }),
  SESSION_TTL_SECONDS: num({ default: 86_400, desc: "Lifetime of a web support session (24 hours)" }),
  // Email verification on the player side (docs/player-side.md, "Verified access").
  SMTP_URL: str({ default: "", desc: "SMTP server of outgoing mail (smtp://user:pass@host:587, smtps://...:465); empty: no email codes can be sent" }),
  MAIL_FROM: str({ default: "Player support <support@localhost>", desc: "From address of the mails sent to players" }),
  EMAIL_CODE_TTL_SECONDS: num({ default: 600, desc: "How long an emailed verification code can be entered" }),
  EMAIL_CODE_MAX_ATTEMPTS: num({ default: 5, desc: "Wrong entries one code allows before a new one must be sent" }),
  EMAIL_CODE_MAX_SENDS: num({ default: 5, desc: "Codes one web support session may have sent" }),
  EMAIL_CODE_RESEND_SECONDS: num({ default: 30, desc: "Least time between two codes for one session" }),
  EXPIRY_SWEEP_INTERVAL_MS: num({ default: 60_000, desc: "Period of the sweep deleting expired sessions and ended rate-limit windows (0 disables it)" }),
  // Player deletion (docs/player-deletion.md).
  TICKETS_URL: str({ default: "http://127.0.0.1:50052", desc: "Where the tickets service answers (erasure of a player's tickets)" }),
  MEDIA_URL: str({ default: "http://127.0.0.1:50053", desc: "Where the media service answers (erasure of a player's attachments)" }),
  PLAYER_DELETION_DELAY_SECONDS: num({ default: 86_400, desc: "Delay of a scheduled deletion (24 hours); at most 6 days" }),
  PLAYER_DELETION_MAX_PENDING: num({
    default: 100_000,
    desc: "Scheduled deletions NATS holds back at once (the consumer's max_ack_pending); more wait until earlier ones are done",
  }),
};

export type PlayersConfig = ReturnType<typeof loadPlayersConfig>;

export function loadPlayersConfig(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(configSpecs, env);
  const problems = deletionSettingsProblems({ delaySeconds: config.PLAYER_DELETION_DELAY_SECONDS, maxPending: config.PLAYER_DELETION_MAX_PENDING });
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  return config;
}
