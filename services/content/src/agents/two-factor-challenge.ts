// The challenge between a right password and the second factor, for a user with two-factor on:
// a random token the gateway keeps in a short-lived cookie (only its hash is stored here),
// single-use, TWO_FACTOR_CHALLENGE_SECONDS long.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { User } from "../users/user.ts";
import { tokenHash } from "./agent-session.ts";
import { writeAudit } from "../audit/audit-log.ts";
import { deleteOldChallenges, insertChallenge } from "./two-factor.repository.ts";
import { newChallengeToken, TWO_FACTOR_CHALLENGE_SECONDS } from "./two-factor.ts";

/** After a right password, for a user with two-factor on: a challenge (only its hash stored), no session. */
export async function openTwoFactorChallenge(
  ctx: { db: Kysely<ContentDatabase> },
  user: Pick<User, "id" | "companyId">,
  clientAddress: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const token = newChallengeToken();
  const expiresAt = new Date(now.getTime() + TWO_FACTOR_CHALLENGE_SECONDS * 1000);
  await ctx.db.transaction().execute(async (trx) => {
    await deleteOldChallenges(trx, new Date(now.getTime() - 86_400_000));
    await insertChallenge(trx, { tokenHash: tokenHash(token), userId: user.id, companyId: user.companyId, now, expiresAt });
    await writeAudit(trx, { action: "two_factor.challenged", companyId: user.companyId, userId: user.id, actor: { type: "anonymous", id: null }, clientAddress }, now);
  });
  return { token, expiresAt };
}
