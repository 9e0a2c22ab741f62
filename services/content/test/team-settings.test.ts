// The team settings' use cases against real Postgres: the list's states and sign-in facts, the
// rules that keep a company an active admin (nobody demotes or deactivates themself, the last
// admin stays, two admins demoting each other at once leave one), a resent invitation retiring
// the previous link, and the audit entries with the admin as actor and the user before and after.
import { randomUUID } from "node:crypto";
import { createLogger } from "@support/logging";
import { createMailer, type Mailer } from "@support/mail";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUserPassword, signIn, type AgentAccessContext } from "../src/agents/agent-access.service.ts";
import { listTeam } from "../src/agents/team.service.ts";
import { resetUserTwoFactor } from "../src/agents/two-factor.service.ts";
import { deactivateUser, inspectLink, inviteUser, resendInvitation, type UserLinksContext } from "../src/agents/user-links.service.ts";
import { userActor, type AuditOrigin } from "../src/audit/audit-log.ts";
import { createUser, updateUser } from "../src/users/user.service.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

const PASSWORD = "lanterns over the quiet bay";
let ctx: ContentTestContext;
let mailer: Mailer;
let links: UserLinksContext;
let access: AgentAccessContext;

beforeAll(async () => {
  ctx = await startContent();
  mailer = createMailer({ smtpUrl: "", from: "Support <support@studio.example>", logger: createLogger({ service: "team-test", level: "silent" }) });
  links = { db: ctx.db, config: { SUPPORT_APP_URL: "https://support.studio.example/app" }, mailer };
  access = { db: ctx.db, config: ctx.config };
});
afterAll(async () => {
  mailer?.close();
  await ctx?.stop();
});

const address = () => `team-${randomUUID().slice(0, 8)}@studio.example`;
const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, "");
const by = (userId: string): AuditOrigin => ({ actor: userActor(userId), clientAddress: "10.9.0.1" });

async function company() {
  const made = await seedCompany(ctx.db);
  const game = (await seedGame(ctx.db, made.id)).game;
  const other = (await seedGame(ctx.db, made.id)).game;
  const admin = await createUser(ctx.db, made.id, { name: "Ada Admin", email: address(), role: "admin", gameIds: [] });
  const agent = await createUser(ctx.db, made.id, { name: "Abe Agent", email: address(), role: "agent", gameIds: [game.id] });
  return { id: made.id, game, other, admin, agent };
}

describe("the team list", () => {
  it("says who is invited, whose invitation expired, who is active or deactivated, and who is signed in now", async () => {
    const team = await company();
    await setUserPassword(access, team.agent.email, PASSWORD);
    await signIn(access, { email: team.agent.email, password: PASSWORD, clientAddress: "10.9.0.2", userAgent: "" });
    const invited = await inviteUser(links, team.id, { name: "Ines Invited", email: address(), gameIds: [] }, new Date(), by(team.admin.id));
    const expired = await inviteUser(links, team.id, { name: "Eve Expired", email: address(), gameIds: [] }, new Date(Date.now() - 73 * 3_600_000));
    const gone = await createUser(ctx.db, team.id, { name: "Dora Done", email: address(), gameIds: [] });
    await deactivateUser(links, team.id, gone.email);

    const listed = await listTeam(ctx.db, team.id);
    const summary = Object.fromEntries(listed.map((member) => [member.user.name, [member.state, member.signedInNow, member.lastSignedInAt !== null]]));
    expect(summary).toEqual({
      "Abe Agent": ["active", true, true],
      "Ada Admin": ["invitation_expired", false, false],
      "Dora Done": ["deactivated", false, false],
      "Eve Expired": ["invitation_expired", false, false],
      "Ines Invited": ["invited", false, false],
    });
    expect(listed.find((member) => member.user.id === invited.user.id)?.invitationExpiresAt).toEqual(invited.expiresAt);
    expect(listed.find((member) => member.user.id === expired.user.id)?.invitationExpiresAt).toEqual(expired.expiresAt);
    expect(await listTeam(ctx.db, (await seedCompany(ctx.db)).id)).toEqual([]);
  });

  it("resends an invitation: a new link, the previous one stops working; refused once the user has a password", async () => {
    const team = await company();
    const first = await inviteUser(links, team.id, { name: "Rita Resent", email: address(), gameIds: [] });
    const second = await resendInvitation(links, team.id, first.user.id, by(team.admin.id));
    await expect(inspectLink(links, tokenOf(first.url))).rejects.toMatchObject({ code: "not_found" });
    expect(await inspectLink(links, tokenOf(second.url))).toMatchObject({ purpose: "invitation", user: { id: first.user.id } });
    await expect(resendInvitation(links, (await seedCompany(ctx.db)).id, first.user.id, by(team.admin.id))).rejects.toMatchObject({ code: "not_found" });
    await setUserPassword(access, first.user.email, PASSWORD);
    await expect(resendInvitation(links, team.id, first.user.id, by(team.admin.id))).rejects.toMatchObject({ code: "conflict" });
  });
});

describe("changing a user", () => {
  it("changes role, games and skills, and records the admin, the user before and after", async () => {
    const team = await company();
    const updated = await updateUser(ctx.db, team.id, team.agent.id, { gameIds: [team.other.id, team.game.id] }, by(team.admin.id));
    expect(updated.gameIds.sort()).toEqual([team.game.id, team.other.id].sort());
    const entry = await ctx.db.selectFrom("audit_log").selectAll().where("user_id", "=", team.agent.id).where("action", "=", "user.updated").executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ actor: { type: "user", id: team.admin.id }, target_type: "user", target_id: team.agent.id, client_address: "10.9.0.1" });
    expect(entry.before).toMatchObject({ role: "agent", gameIds: [team.game.id] });
    expect((entry.after as { gameIds: string[] }).gameIds.sort()).toEqual([team.game.id, team.other.id].sort());
    // Nothing changed: nothing recorded.
    await updateUser(ctx.db, team.id, team.agent.id, { role: "agent" }, by(team.admin.id));
    expect(await ctx.db.selectFrom("audit_log").select("id").where("user_id", "=", team.agent.id).where("action", "=", "user.updated").execute()).toHaveLength(1);

    await expect(updateUser(ctx.db, team.id, team.agent.id, { role: "owner", gameIds: ["nope", team.game.id, team.game.id] }, by(team.admin.id))).rejects.toMatchObject({
      code: "invalid_argument", details: { issues: [{ path: "/role" }, { path: "/gameIds/0" }, { path: "/gameIds/2" }] },
    });
    const foreign = (await seedGame(ctx.db, (await seedCompany(ctx.db)).id)).game;
    await expect(updateUser(ctx.db, team.id, team.agent.id, { gameIds: [foreign.id] }, by(team.admin.id))).rejects.toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/gameIds/0" }] } });
    await expect(updateUser(ctx.db, team.id, team.agent.id, { skills: ["billing"] }, by(team.admin.id))).rejects.toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/skills/0" }] } });
    await expect(updateUser(ctx.db, (await seedCompany(ctx.db)).id, team.agent.id, { role: "admin" }, by(team.admin.id))).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps an active admin: the last admin cannot be demoted or deactivated, nobody demotes or deactivates themself", async () => {
    const team = await company();
    await expect(updateUser(ctx.db, team.id, team.admin.id, { role: "agent" }, by(team.admin.id))).rejects.toMatchObject({ code: "conflict", details: { type: "LAST_ADMIN" } });
    await expect(deactivateUser(links, team.id, { userId: team.admin.id }, new Date(), by(team.admin.id))).rejects.toMatchObject({ code: "conflict", details: { type: "LAST_ADMIN" } });
    await updateUser(ctx.db, team.id, team.agent.id, { role: "admin" }, by(team.admin.id));
    await expect(updateUser(ctx.db, team.id, team.admin.id, { role: "agent" }, by(team.admin.id))).rejects.toMatchObject({ code: "conflict", details: { type: "OWN_ROLE" } });
    await expect(deactivateUser(links, team.id, { userId: team.admin.id }, new Date(), by(team.admin.id))).rejects.toMatchObject({ code: "conflict", details: { type: "OWN_ACCOUNT" } });

    // Two admins demoting each other at once: one wins, the other is no admin any more.
    const results = await Promise.allSettled([
      updateUser(ctx.db, team.id, team.admin.id, { role: "agent" }, by(team.agent.id)),
      updateUser(ctx.db, team.id, team.agent.id, { role: "agent" }, by(team.admin.id)),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")).toMatchObject({ reason: { code: "permission_denied" } });
    const admins = await ctx.db.selectFrom("users").select("id").where("company_id", "=", team.id).where("role", "=", "admin").where("active", "=", true).execute();
    expect(admins).toHaveLength(1);
  });

  it("deactivates and resets two-factor by id, with the admin as actor; another company's user is not found", async () => {
    const team = await company();
    await setUserPassword(access, team.agent.email, PASSWORD);
    await signIn(access, { email: team.agent.email, password: PASSWORD, clientAddress: "10.9.0.3", userAgent: "" });
    expect(await resetUserTwoFactor(access, { companyId: team.id, userId: team.agent.id }, new Date(), by(team.admin.id))).toMatchObject({ hadTwoFactor: false, sessionsEnded: 1 });
    expect(await deactivateUser(links, team.id, { userId: team.agent.id }, new Date(), by(team.admin.id))).toMatchObject({ user: { active: false }, endedSessions: 0 });
    await expect(resetUserTwoFactor(access, { companyId: team.id, userId: team.agent.id }, new Date(), by(team.admin.id))).rejects.toMatchObject({ code: "conflict" });
    await expect(deactivateUser(links, (await seedCompany(ctx.db)).id, { userId: team.admin.id }, new Date(), by(team.admin.id))).rejects.toMatchObject({ code: "not_found" });
    const entries = await ctx.db.selectFrom("audit_log").selectAll().where("user_id", "=", team.agent.id).where("action", "in", ["two_factor.reset", "user.deactivated"]).orderBy("id").execute();
    expect(entries.map((entry) => [entry.action, entry.actor, entry.before, entry.after])).toEqual([
      ["two_factor.reset", { type: "user", id: team.admin.id }, { twoFactorEnabled: false }, { twoFactorEnabled: false }],
      ["user.deactivated", { type: "user", id: team.admin.id }, expect.objectContaining({ active: true }), expect.objectContaining({ active: false })],
    ]);
  });
});
