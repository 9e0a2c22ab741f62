// The content service's configuration, from environment variables only.
import { loadConfig, num, str } from "@support/config";
import { adminTokenSpec, portSpec, serviceConfigSpecs } from "@support/runtime";
import { idempotencyConfigSpecs } from "@support/idempotency";

export const configSpecs = {
  ...serviceConfigSpecs,
  ...idempotencyConfigSpecs,
  PORT: portSpec(50051),
  ADMIN_TOKEN: adminTokenSpec,
  // The support application's sign-in (docs/agents.md).
  AGENT_SESSION_IDLE_SECONDS: num({ default: 43_200, desc: "A support application session unused this long ends (12 hours)" }),
  AGENT_SESSION_MAX_SECONDS: num({ default: 604_800, desc: "A support application session ends this long after sign-in, used or not (7 days)" }),
  SIGN_IN_MAX_FAILURES_PER_ACCOUNT: num({ default: 5, desc: "Failed sign-ins to one email within SIGN_IN_FAILURE_WINDOW_MINUTES that lock it" }),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS: num({ default: 50, desc: "Failed sign-ins from one client address within the window that lock the address" }),
  SIGN_IN_FAILURE_WINDOW_MINUTES: num({ default: 15, desc: "The window failed sign-ins are counted in" }),
  SIGN_IN_LOCK_MINUTES: num({ default: 15, desc: "How long a locked account or address is refused" }),
  SUPPORT_APP_URL: str({ default: "https://support.example.com", desc: "The support application's address: invitation and password-reset links lead there" }),
  SMTP_URL: str({ default: "", desc: "SMTP server of outgoing mail (smtp://user:pass@host:587, smtps://...:465); empty: links are only printed by pnpm admin" }),
  MAIL_FROM: str({ default: "Player support <support@localhost>", desc: "From address of the mails sent to users (invitations, password resets)" }),
};

export type ContentConfig = ReturnType<typeof loadContentConfig>;

export function loadContentConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
