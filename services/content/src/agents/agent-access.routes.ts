// content.v1.AgentAccessService (the gateway's /agent-api door) mapped onto the sign-in use
// cases. Handlers only translate messages.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AgentAccessService, type AgentSessionSchema } from "@support/proto";
import type { ContentDeps } from "../context.ts";
import { displayNameOf } from "../users/user.ts";
import { beginSignIn, getAgentSession, signOut, signOutEverywhere, type LiveAgentSession } from "./agent-access.service.ts";
import { twoFactorContextOf, twoFactorHandlers } from "./two-factor.routes.ts";

function sessionMessage({ session, user, twoFactor }: LiveAgentSession): MessageInitShape<typeof AgentSessionSchema> {
  return {
    id: session.id,
    user: { id: user.id, companyId: user.companyId, name: user.name, displayName: displayNameOf(user), email: user.email, role: user.role, gameIds: user.gameIds },
    csrfToken: session.csrfToken,
    createdAt: timestampFromDate(session.createdAt),
    idleExpiresAt: timestampFromDate(session.idleExpiresAt),
    expiresAt: timestampFromDate(session.expiresAt),
    scope: session.scope,
    twoFactorEnabled: twoFactor.enabled,
    twoFactorRequired: twoFactor.required,
  };
}

export function registerAgentAccessRoutes(router: ConnectRouter, deps: ContentDeps): void {
  const ctx = { db: deps.db, config: deps.config };
  router.service(AgentAccessService, {
    signIn: async (req) => {
      const result = await beginSignIn(ctx, { email: req.email, password: req.password, clientAddress: req.clientAddress, userAgent: req.userAgent });
      if ("challenge" in result) return { twoFactorChallenge: result.challenge.token, twoFactorChallengeExpiresAt: timestampFromDate(result.challenge.expiresAt) };
      return { sessionToken: result.token, session: sessionMessage(result.live) };
    },
    getAgentSession: async (req) => ({ session: sessionMessage(await getAgentSession(ctx, req.sessionToken)) }),
    signOut: async (req) => {
      await signOut(ctx, req.sessionToken, req.clientAddress);
      return {};
    },
    signOutEverywhere: async (req) => ({ ended: await signOutEverywhere(ctx, req.sessionToken, req.clientAddress) }),
    ...twoFactorHandlers(twoFactorContextOf(deps), sessionMessage),
  });
}
