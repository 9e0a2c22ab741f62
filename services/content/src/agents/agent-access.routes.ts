// content.v1.AgentAccessService (the gateway's /agent-api door) mapped onto the sign-in use
// cases. Handlers only translate messages.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AgentAccessService, type AgentSessionSchema } from "@support/proto";
import type { ContentDeps } from "../context.ts";
import { isUuid } from "../common/validation.ts";
import { listActiveUsers } from "../users/user.repository.ts";
import { displayNameOf, type User } from "../users/user.ts";
import { setAvailability } from "../routing/routing.service.ts";
import { beginSignIn, getAgentSession, readAuditLog, signOut, signOutEverywhere, type LiveAgentSession } from "./agent-access.service.ts";
import { singleSignOnContextOf, singleSignOnHandlers } from "./single-sign-on.routes.ts";
import { twoFactorContextOf, twoFactorHandlers } from "./two-factor.routes.ts";
import { inspectLink, redeemLink, requestPasswordReset, type UserLinksContext } from "./user-links.service.ts";

function userMessage(user: User) {
  return { id: user.id, companyId: user.companyId, name: user.name, displayName: displayNameOf(user), email: user.email, role: user.role, gameIds: user.gameIds, skills: user.skills, available: user.available, languages: user.languages, capacity: user.capacity };
}

function sessionMessage({ session, user, twoFactor }: LiveAgentSession): MessageInitShape<typeof AgentSessionSchema> {
  return {
    id: session.id,
    user: userMessage(user),
    csrfToken: session.csrfToken,
    createdAt: timestampFromDate(session.createdAt),
    idleExpiresAt: timestampFromDate(session.idleExpiresAt),
    expiresAt: timestampFromDate(session.expiresAt),
    scope: session.scope,
    twoFactorEnabled: twoFactor.enabled,
    twoFactorRequired: twoFactor.required,
  };
}

export function registerAgentAccessRoutes(router: ConnectRouter, deps: ContentDeps & Pick<UserLinksContext, "mailer">): void {
  const ctx = { db: deps.db, config: deps.config };
  const links = { db: deps.db, config: deps.config, mailer: deps.mailer };
  router.service(AgentAccessService, {
    signIn: async (req) => {
      const result = await beginSignIn(ctx, { email: req.email, password: req.password, clientAddress: req.clientAddress, userAgent: req.userAgent });
      if ("challenge" in result) return { twoFactorChallenge: result.challenge.token, twoFactorChallengeExpiresAt: timestampFromDate(result.challenge.expiresAt) };
      return { sessionToken: result.token, session: sessionMessage(result.live) };
    },
    getAgentSession: async (req) => ({ session: sessionMessage(await getAgentSession(ctx, req.sessionToken)) }),
    listCompanyUsers: async (req) => ({ users: isUuid(req.companyId) ? (await listActiveUsers(deps.db, req.companyId)).map(userMessage) : [] }),
    signOut: async (req) => {
      await signOut(ctx, req.sessionToken, req.clientAddress);
      return {};
    },
    signOutEverywhere: async (req) => ({ ended: await signOutEverywhere(ctx, req.sessionToken, req.clientAddress) }),
    setAvailability: async (req) => ({ available: await setAvailability(deps.db, req.companyId, req.userId, req.available) }),
    requestPasswordReset: async (req) => {
      await requestPasswordReset(links, req.email, req.clientAddress);
      return {};
    },
    inspectLink: async (req) => {
      const { purpose, user, expiresAt } = await inspectLink(links, req.token);
      return { purpose, email: user.email, name: user.name, expiresAt: timestampFromDate(expiresAt) };
    },
    listAuditLog: async (req) => {
      const filter = {
        action: req.action, actorId: req.actorId, targetType: req.targetType,
        since: req.since ? timestampDate(req.since) : undefined, until: req.until ? timestampDate(req.until) : undefined,
      };
      const { entries, nextBefore } = await readAuditLog(ctx, req.sessionToken, { limit: req.limit, before: req.before, filter });
      return {
        entries: entries.map((entry) => ({
          id: entry.id,
          action: entry.action,
          userId: entry.userId ?? undefined,
          actorType: entry.actor.type,
          actorId: entry.actor.id ?? undefined,
          actorName: entry.actor.name ?? undefined,
          targetType: entry.target?.type,
          targetId: entry.target?.id,
          before: (entry.before ?? undefined) as JsonObject | undefined,
          after: (entry.after ?? undefined) as JsonObject | undefined,
          clientAddress: entry.clientAddress ?? undefined,
          detail: entry.detail as JsonObject,
          createdAt: timestampFromDate(entry.createdAt),
        })),
        nextBefore,
      };
    },
    redeemLink: async (req) => {
      const { purpose, user } = await redeemLink(links, req.token, req.password, req.clientAddress);
      return { purpose, email: user.email };
    },
    ...twoFactorHandlers(twoFactorContextOf(deps), sessionMessage),
    ...singleSignOnHandlers(singleSignOnContextOf(deps), sessionMessage),
  });
}
