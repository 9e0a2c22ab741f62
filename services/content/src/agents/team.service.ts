// The team settings' view of a company's users: each user with what the sign-in side knows of
// them (a password, an invitation, two-factor, sessions), read in one query per table.
import type { Kysely } from "kysely";
import type { ContentDatabase } from "../database.ts";
import { isUuid } from "../common/validation.ts";
import { listUsers } from "../users/user.repository.ts";
import type { User } from "../users/user.ts";

type Db = Kysely<ContentDatabase>;

/**
 * invited: no password yet and a usable invitation; invitation_expired: no password yet and no
 * usable invitation (expired, used up, or none sent); active: a password, or a sign-in (single
 * sign-on users have no password); deactivated: cannot sign in.
 */
export type TeamMemberState = "invited" | "invitation_expired" | "active" | "deactivated";

export interface TeamMember {
  user: User;
  state: TeamMemberState;
  twoFactorEnabled: boolean;
  invitationExpiresAt: Date | null;
  lastSignedInAt: Date | null;
  /** A live session now. */
  signedInNow: boolean;
}

export function teamMemberState(user: Pick<User, "active">, facts: { hasPassword: boolean; everSignedIn: boolean; invitationUsable: boolean }): TeamMemberState {
  if (!user.active) return "deactivated";
  if (facts.hasPassword || facts.everSignedIn) return "active";
  return facts.invitationUsable ? "invited" : "invitation_expired";
}

/** Every user of the company (active and deactivated), by name, with their sign-in facts. */
export async function listTeam(db: Db, companyId: string, now = new Date()): Promise<TeamMember[]> {
  if (!isUuid(companyId)) return [];
  const [users, credentials, twoFactor, sessions, invitations] = await Promise.all([
    listUsers(db, companyId),
    db.selectFrom("user_credentials").select("user_id").where("company_id", "=", companyId).execute(),
    db.selectFrom("user_two_factor").select("user_id").where("company_id", "=", companyId).where("enabled_at", "is not", null).execute(),
    db
      .selectFrom("agent_sessions")
      .select((eb) => [
        "user_id",
        eb.fn.max("created_at").as("last_signed_in_at"),
        eb.fn.countAll<string>().filterWhere((w) => w.and([w("ended_at", "is", null), w("expires_at", ">", now), w("idle_expires_at", ">", now)])).as("live"),
      ])
      .where("company_id", "=", companyId)
      .groupBy("user_id")
      .execute(),
    db
      .selectFrom("user_links")
      .select((eb) => ["user_id", eb.fn.max("expires_at").as("expires_at"), eb.fn.countAll<string>().filterWhere((w) => w.and([w("used_at", "is", null), w("expires_at", ">", now)])).as("usable")])
      .where("company_id", "=", companyId)
      .where("purpose", "=", "invitation")
      .groupBy("user_id")
      .execute(),
  ]);
  const withPassword = new Set(credentials.map((row) => row.user_id));
  const withTwoFactor = new Set(twoFactor.map((row) => row.user_id));
  const sessionsOf = new Map(sessions.map((row) => [row.user_id, row]));
  const invitationOf = new Map(invitations.map((row) => [row.user_id, row]));
  return users.map((user) => {
    const session = sessionsOf.get(user.id);
    const invitation = invitationOf.get(user.id);
    const hasPassword = withPassword.has(user.id);
    const state = teamMemberState(user, { hasPassword, everSignedIn: session !== undefined, invitationUsable: Number(invitation?.usable ?? 0) > 0 });
    return {
      user,
      state,
      twoFactorEnabled: withTwoFactor.has(user.id),
      invitationExpiresAt: state === "invited" || state === "invitation_expired" ? (invitation?.expires_at ?? null) : null,
      lastSignedInAt: session ? new Date(session.last_signed_in_at) : null,
      signedInNow: user.active && Number(session?.live ?? 0) > 0,
    };
  });
}

/** One user of the team (listTeam's view of them); undefined for another company's user or none. */
export async function findTeamMember(db: Db, companyId: string, userId: string, now = new Date()): Promise<TeamMember | undefined> {
  return (await listTeam(db, companyId, now)).find((member) => member.user.id === userId);
}
