// content.v1.ContentAdminService (the operators' admin tool) mapped onto the use cases. Every
// call needs the admin token (ADMIN_TOKEN): the gate refuses it before the body is read.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { ContentAdminService } from "@support/proto";
import { adminTokenGate } from "@support/rpc";
import { setUserPassword } from "./agents/agent-access.service.ts";
import { createPasswordResetLink, deactivateUser, inviteUser, type UserLinksContext } from "./agents/user-links.service.ts";
import { resetUserTwoFactor } from "./agents/two-factor.service.ts";
import { createApiKey, revokeApiKey } from "./api-keys/api-key.service.ts";
import { OPERATOR } from "./audit/audit-log.ts";
import { deleteGame, locateGame } from "./games/game.service.ts";
import type { ContentDeps } from "./context.ts";
import { applyTenant } from "./tenants/tenant.service.ts";

export function registerAdminRoutes(router: ConnectRouter, deps: ContentDeps & Pick<UserLinksContext, "mailer">): void {
  const { db } = deps;
  const links = { db, config: deps.config, mailer: deps.mailer };
  router.service(
    ContentAdminService,
    {
      applyTenant: async (req) => applyTenant(db, req.digest, req.tenant, { companyId: req.companyId, dryRun: req.dryRun, uniqueCompanyName: req.uniqueCompanyName }),

      createApiKey: async (req) => {
        const { apiKey, secret } = await createApiKey(db, req.companyId, { name: req.name }, { actor: OPERATOR });
        return { apiKeyId: apiKey.id, name: apiKey.name, secret };
      },

      revokeApiKey: async (req) => ({ apiKeyId: (await revokeApiKey(db, req.apiKeyId, { actor: OPERATOR })).id }),

      deleteGame: async (req) => ({ gameId: (await deleteGame(db, req.gameId)).id }),

      locateGame: async (req) => {
        const game = await locateGame(db, req.gameId);
        return { gameId: game.id, companyId: game.companyId };
      },

      setUserPassword: async (req) => {
        const user = await setUserPassword({ db }, req.email, req.password);
        return { userId: user.id, companyId: user.companyId };
      },

      inviteUser: async (req) => {
        const issued = await inviteUser(links, req.companyId, { name: req.name, email: req.email, role: req.role, displayName: req.displayName, gameIds: req.gameIds });
        return { userId: issued.user.id, link: issued.url, expiresAt: timestampFromDate(issued.expiresAt), mailed: issued.mailed };
      },

      createPasswordResetLink: async (req) => {
        const issued = await createPasswordResetLink(links, req.email);
        return { userId: issued.user.id, link: issued.url, expiresAt: timestampFromDate(issued.expiresAt), mailed: issued.mailed };
      },

      deactivateUser: async (req) => {
        const { user, endedSessions } = await deactivateUser(links, req.companyId, req.email);
        return { userId: user.id, endedSessions };
      },

      resetUserTwoFactor: async (req) => {
        const { user, hadTwoFactor, sessionsEnded } = await resetUserTwoFactor({ db }, req.email);
        return { userId: user.id, companyId: user.companyId, hadTwoFactor, sessionsEnded };
      },
    },
    { requestGate: adminTokenGate(deps.config.ADMIN_TOKEN) },
  );
}
