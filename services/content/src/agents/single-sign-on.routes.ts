// Single sign-on's two calls of content.v1.AgentAccessService, mapped onto the use cases.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { AgentAccessService, AgentSessionSchema } from "@support/proto";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ContentDeps } from "../context.ts";
import type { LiveAgentSession } from "./agent-access.service.ts";
import { createClientSecrets } from "./client-secrets.ts";
import { createOpenIdProviders } from "./openid-provider.ts";
import { completeSingleSignOn, startSingleSignOn, type SingleSignOnContext } from "./single-sign-on.service.ts";

export function singleSignOnContextOf(deps: ContentDeps): SingleSignOnContext {
  return { db: deps.db, config: deps.config, providers: createOpenIdProviders(), clientSecrets: createClientSecrets(deps.config.SSO_CLIENTS_DIR) };
}

export function singleSignOnHandlers(
  ctx: SingleSignOnContext,
  sessionMessage: (live: LiveAgentSession) => MessageInitShape<typeof AgentSessionSchema>,
): Pick<ServiceImpl<typeof AgentAccessService>, "startSingleSignOn" | "completeSingleSignOn"> {
  return {
    startSingleSignOn: async (req) => {
      const started = await startSingleSignOn(ctx, { companyId: req.companyId, email: req.email, redirectUri: req.redirectUri, returnTo: req.returnTo, clientAddress: req.clientAddress });
      return { authorizationUrl: started.authorizationUrl, attemptToken: started.attemptToken, expiresAt: timestampFromDate(started.expiresAt) };
    },
    completeSingleSignOn: async (req) => {
      const result = await completeSingleSignOn(ctx, { attemptToken: req.attemptToken, callbackQuery: req.callbackQuery, clientAddress: req.clientAddress, userAgent: req.userAgent });
      if ("challenge" in result) {
        return { twoFactorChallenge: result.challenge.token, twoFactorChallengeExpiresAt: timestampFromDate(result.challenge.expiresAt), returnTo: result.returnTo };
      }
      return { sessionToken: result.token, session: sessionMessage(result.live), returnTo: result.returnTo };
    },
  };
}
