// The two-factor RPCs of content.v1.AgentAccessService, mapped onto the use cases; registered
// with the rest of the service in agent-access.routes.ts.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { AgentAccessService, AgentSessionSchema } from "@support/proto";
import type { ContentDeps } from "../context.ts";
import type { LiveAgentSession } from "./agent-access.service.ts";
import { totpSecretBoxFor } from "./two-factor-secret-box.ts";
import { completeTwoFactorSignIn, confirmTwoFactorEnrolment, startTwoFactorEnrolment, type TwoFactorContext } from "./two-factor.service.ts";

type Handlers = Pick<ServiceImpl<typeof AgentAccessService>, "completeTwoFactorSignIn" | "startTwoFactorEnrolment" | "confirmTwoFactorEnrolment">;

export function twoFactorContextOf(deps: Pick<ContentDeps, "db" | "config">): TwoFactorContext {
  return { db: deps.db, config: deps.config, secrets: totpSecretBoxFor(deps.config.TOTP_ENCRYPTION_KEY), issuer: deps.config.TOTP_ISSUER };
}

export function twoFactorHandlers(ctx: TwoFactorContext, sessionMessage: (live: LiveAgentSession) => MessageInitShape<typeof AgentSessionSchema>): Handlers {
  return {
    completeTwoFactorSignIn: async (req) => {
      const done = await completeTwoFactorSignIn(ctx, { challenge: req.challenge, code: req.code, clientAddress: req.clientAddress, userAgent: req.userAgent });
      return { sessionToken: done.token, session: sessionMessage(done.live), recoveryCodeUsed: done.recoveryCodeUsed, recoveryCodesLeft: done.recoveryCodesLeft };
    },
    startTwoFactorEnrolment: async (req) => startTwoFactorEnrolment(ctx, req.sessionToken, req.clientAddress),
    confirmTwoFactorEnrolment: async (req) => {
      const done = await confirmTwoFactorEnrolment(ctx, { sessionToken: req.sessionToken, code: req.code, clientAddress: req.clientAddress, userAgent: req.userAgent });
      return { recoveryCodes: done.recoveryCodes, sessionToken: done.token, session: sessionMessage(done.live) };
    },
  };
}
