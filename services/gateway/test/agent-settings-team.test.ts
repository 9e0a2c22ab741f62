// The team settings over the real stack: an admin lists the company's users (state, games,
// two-factor, last sign-in, signed in now), invites one (the mail's link sets the password),
// sends a new invitation (the previous link stops working), changes a user's role and games,
// deactivates a user (their session is refused at once) and resets a user's two-factor. The
// company keeps an active admin; an agent gets 403 on every operation, another company's admin
// 404 for this company's users; every change is in the audit log with the admin as actor.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = {
  ada: `ada-${suffix}@team.example`, abe: `abe-${suffix}@team.example`, bea: `bea-${suffix}@team.example`, oto: `oto-${suffix}@other.example`,
};

interface MemberDto {
  id: string;
  name: string;
  email: string;
  role: string;
  gameIds: string[];
  skills: string[];
  twoFactorEnabled: boolean;
  state: string;
  invitationExpiresAt: string | null;
  lastSignedInAt: string | null;
  signedInNow: boolean;
}
interface TeamDto {
  users: MemberDto[];
  games: { id: string; name: string }[];
  skillTags: string[];
}
interface AuditEntryDto {
  action: string;
  userId: string | null;
  actor: { type: string; id: string | null; name: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
const users = {} as Record<"ada" | "abe" | "bea" | "oto", SignedInAgent>;
const origin = () => new URL(stack.url).origin;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PATCH" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const team = async (user: SignedInAgent = users.ada) => {
  const response = await read(user, "/agent-api/settings/users");
  expect(response.status, response.text).toBe(200);
  return response.body as TeamDto;
};
const member = async (email: string) => (await team()).users.find((user) => user.email === email)!;
const linkOf = (text: string) => /https?:\/\/\S+#token=[\w-]+/.exec(text)![0];
const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, "");
const inspect = (token: string) => stack.request("/agent-api/links/inspect", { method: "POST", headers: { origin: origin() }, json: { token } });

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Team Studio" },
    games: [
      { ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"] },
      { ref: "nebula", name: "Nebula", slug: `nebula-${suffix}`, languages: ["en"] },
    ],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
      { ref: "bea", name: "Bea Agent", email: emails.bea, role: "agent", games: ["galaxy"] },
    ],
  });
  await stack.applyTenant({ company: { name: "Other Team Studio" }, users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }] });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  for (const name of ["ada", "abe", "bea", "oto"] as const) users[name] = await signInAgent(stack, emails[name], PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("the team list", () => {
  it("lists every user with role, games, two-factor, state, last sign-in and who is signed in now, and the company's games", async () => {
    const listed = await team();
    expect(listed.users.map((user) => user.name)).toEqual(["Abe Agent", "Ada Admin", "Bea Agent"]);
    expect(listed.games.map((game) => game.name)).toEqual(["Galaxy", "Nebula"]);
    const abe = listed.users[0]!;
    expect(abe).toMatchObject({ email: emails.abe, role: "agent", gameIds: [tenant.games.galaxy!.id], twoFactorEnabled: false, state: "active", signedInNow: true, invitationExpiresAt: null });
    expect(Date.now() - Date.parse(abe.lastSignedInAt!)).toBeLessThan(120_000);
    // An admin has every game.
    expect(listed.users[1]!.gameIds).toEqual([tenant.games.galaxy!.id, tenant.games.nebula!.id]);
    // Another company's admin sees only their own team.
    expect((await team(users.oto)).users.map((user) => user.email)).toEqual([emails.oto]);
  });
});

describe("invitations", () => {
  let invitedId: string;
  const invitee = `ivy-${suffix}@team.example`;

  it("invites a user, mails the link that sets their password, and sends a new link that replaces the first", async () => {
    const invited = await write(users.ada, "POST", "/agent-api/settings/users", { email: invitee, name: "Ivy Invited", role: "agent", gameIds: [tenant.games.nebula!.id], displayName: "Ivy" });
    expect(invited.status, invited.text).toBe(201);
    const { user, mailed } = invited.body as { user: MemberDto; mailed: boolean };
    invitedId = user.id;
    expect(mailed).toBe(true);
    expect(user).toMatchObject({ name: "Ivy Invited", role: "agent", gameIds: [tenant.games.nebula!.id], state: "invited", signedInNow: false, lastSignedInAt: null });
    expect(Date.parse(user.invitationExpiresAt!) - Date.now()).toBeGreaterThan(71.9 * 3_600_000);
    const first = linkOf((await stack.smtp.waitForMail(invitee)).text);
    expect((await inspect(tokenOf(first))).status).toBe(200);

    const before = stack.smtp.mails.length;
    const resent = await write(users.ada, "POST", `/agent-api/settings/users/${invitedId}/invitation`);
    expect(resent.status, resent.text).toBe(200);
    const second = linkOf((await stack.smtp.waitForMail(invitee, { after: before })).text);
    expect(second).not.toBe(first);
    expect((await inspect(tokenOf(first))).status).toBe(404);
    expect((await inspect(tokenOf(second))).status).toBe(200);

    const redeemed = await stack.request("/agent-api/links/redeem", { method: "POST", headers: { origin: origin() }, json: { token: tokenOf(second), password: PASSWORD } });
    expect(redeemed.status, redeemed.text).toBe(204);
    expect(await member(invitee)).toMatchObject({ state: "active", invitationExpiresAt: null });
    // Now that the user has a password, neither a new invitation nor an invitation of the email.
    for (const refused of [
      await write(users.ada, "POST", `/agent-api/settings/users/${invitedId}/invitation`),
      await write(users.ada, "POST", "/agent-api/settings/users", { email: invitee, name: "Ivy Again", role: "agent", gameIds: [] }),
    ]) {
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body).toMatchObject({ code: "conflict" });
    }
  });

  it("refuses bad input with the paths, and writes nothing", async () => {
    const count = (await team()).users.length;
    const foreignGame = randomUUID();
    const cases: [unknown, string[]][] = [
      [{ email: "not an email", name: "X", role: "agent", gameIds: [] }, ["/email"]],
      [{ email: `x-${suffix}@team.example`, name: "X", role: "owner", gameIds: [] }, ["/role"]],
      [{ email: `x-${suffix}@team.example`, name: "X", role: "agent", gameIds: [foreignGame] }, ["/gameIds/0"]],
      [{ email: `x-${suffix}@team.example`, name: "", role: "agent", gameIds: ["nope"] }, ["/name", "/gameIds/0"]],
      [{ email: `x-${suffix}@team.example`, name: "X", role: "agent", gameIds: [], skills: ["no such skill"] }, ["/skills/0"]],
    ];
    for (const [body, paths] of cases) {
      const refused = await write(users.ada, "POST", "/agent-api/settings/users", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      const issues = (refused.body as { details: { issues: { path: string }[] } }).details.issues.map((issue) => issue.path);
      for (const path of paths) expect(issues, JSON.stringify(body)).toContain(path);
    }
    const abe = await member(emails.abe);
    for (const body of [{}, { role: "owner" }, { gameIds: [randomUUID()] }, { gameIds: "all" }]) {
      const refused = await write(users.ada, "PATCH", `/agent-api/settings/users/${abe.id}`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await team()).users.length).toBe(count);
  });
});

describe("changes of a user", () => {
  it("changes an agent's games and role", async () => {
    const abe = await member(emails.abe);
    const changed = await write(users.ada, "PATCH", `/agent-api/settings/users/${abe.id}`, { gameIds: [tenant.games.galaxy!.id, tenant.games.nebula!.id] });
    expect(changed.status, changed.text).toBe(200);
    expect((changed.body as MemberDto).gameIds).toEqual([tenant.games.galaxy!.id, tenant.games.nebula!.id]);
    expect((await member(emails.abe)).gameIds).toHaveLength(2);
  });

  it("keeps an active admin: the last admin cannot step down, and no admin changes their own role or deactivates themself", async () => {
    const ada = await member(emails.ada);
    const last = await write(users.ada, "PATCH", `/agent-api/settings/users/${ada.id}`, { role: "agent" });
    expect(last.status, last.text).toBe(409);
    expect(last.body).toMatchObject({ code: "conflict", message: "Ada Admin is the company's last active admin: make another user an admin first", details: { type: "LAST_ADMIN" } });
    const lastDeactivation = await write(users.ada, "POST", `/agent-api/settings/users/${ada.id}/deactivate`);
    expect(lastDeactivation.status).toBe(409);
    expect(lastDeactivation.body).toMatchObject({ details: { type: "LAST_ADMIN" } });

    const bea = await member(emails.bea);
    expect((await write(users.ada, "PATCH", `/agent-api/settings/users/${bea.id}`, { role: "admin" })).status).toBe(200);
    const own = await write(users.ada, "PATCH", `/agent-api/settings/users/${ada.id}`, { role: "agent" });
    expect(own.status).toBe(409);
    expect(own.body).toMatchObject({ message: "You cannot change your own role: another admin can", details: { type: "OWN_ROLE" } });
    const ownAccount = await write(users.ada, "POST", `/agent-api/settings/users/${ada.id}/deactivate`);
    expect(ownAccount.status).toBe(409);
    expect(ownAccount.body).toMatchObject({ details: { type: "OWN_ACCOUNT" } });
    // The other admin may demote Bea again.
    expect((await write(users.ada, "PATCH", `/agent-api/settings/users/${bea.id}`, { role: "agent" })).status).toBe(200);
    expect((await member(emails.bea)).role).toBe("agent");
  });

  it("resets a user's two-factor and ends their sessions", async () => {
    const bea = await member(emails.bea);
    const reset = await write(users.ada, "DELETE", `/agent-api/settings/users/${bea.id}/two-factor`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toMatchObject({ twoFactorEnabled: false, signedInNow: false });
    await expect.poll(async () => (await read(users.bea, "/agent-api/me")).status, { timeout: 2000, interval: 20 }).toBe(401);
  });

  it("deactivates a user: their next request is refused and they cannot sign in", async () => {
    const abe = await member(emails.abe);
    expect((await read(users.abe, "/agent-api/me")).status).toBe(200);
    const deactivated = await write(users.ada, "POST", `/agent-api/settings/users/${abe.id}/deactivate`);
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body).toMatchObject({ state: "deactivated", signedInNow: false });
    await expect.poll(async () => (await read(users.abe, "/agent-api/me")).status, { timeout: 2000, interval: 20 }).toBe(401);
    const signIn = await stack.request("/agent-api/sign-in", { method: "POST", headers: { origin: origin() }, json: { email: emails.abe, password: PASSWORD } });
    expect(signIn.status).toBe(401);
    // Deactivating again answers the user unchanged; they can be neither re-invited nor reset.
    expect((await write(users.ada, "POST", `/agent-api/settings/users/${abe.id}/deactivate`)).status).toBe(200);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/users/${abe.id}/two-factor`)).status).toBe(409);
    expect((await member(emails.abe)).state).toBe("deactivated");
  });
});

describe("who may", () => {
  it("answers an agent 403 on every team operation, before anything is read", async () => {
    const agent = await signInAgent(stack, `ivy-${suffix}@team.example`, PASSWORD);
    const target = (await member(emails.ada)).id;
    const refusals = [
      await read(agent, "/agent-api/settings/users"),
      await write(agent, "POST", "/agent-api/settings/users", { email: `z-${suffix}@team.example`, name: "Z", role: "agent", gameIds: [] }),
      await write(agent, "PATCH", `/agent-api/settings/users/${target}`, { role: "agent" }),
      await write(agent, "POST", `/agent-api/settings/users/${target}/invitation`),
      await write(agent, "POST", `/agent-api/settings/users/${target}/deactivate`),
      await write(agent, "DELETE", `/agent-api/settings/users/${target}/two-factor`),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toMatchObject({ code: "permission_denied" });
    }
    expect((await member(emails.ada)).role).toBe("admin");
  });

  it("answers another company's admin 404 for this company's users", async () => {
    const bea = (await member(emails.bea)).id;
    const refusals = [
      await write(users.oto, "PATCH", `/agent-api/settings/users/${bea}`, { role: "admin" }),
      await write(users.oto, "POST", `/agent-api/settings/users/${bea}/invitation`),
      await write(users.oto, "POST", `/agent-api/settings/users/${bea}/deactivate`),
      await write(users.oto, "DELETE", `/agent-api/settings/users/${bea}/two-factor`),
    ];
    for (const refused of refusals) expect(refused.status, refused.text).toBe(404);
    expect(await member(emails.bea)).toMatchObject({ role: "agent", state: "active" });
  });
});

describe("the audit log", () => {
  it("records each change with the admin as actor, the user as subject and target, before and after, and never a link", async () => {
    const response = await read(users.ada, "/agent-api/audit-log?limit=200&targetType=user");
    expect(response.status, response.text).toBe(200);
    const entries = (response.body as { entries: AuditEntryDto[] }).entries;
    const [abe, bea, ivy] = [await member(emails.abe), await member(emails.bea), await member(`ivy-${suffix}@team.example`)];
    const byAda = { type: "user", id: users.ada.userId, name: "Ada Admin" };
    const summary = entries.filter((entry) => entry.actor.id === users.ada.userId).map((entry) => [entry.action, entry.userId, entry.target?.id]);
    expect(summary).toEqual([
      ["user.deactivated", abe.id, abe.id],
      ["two_factor.reset", bea.id, bea.id],
      ["user.updated", bea.id, bea.id],
      ["user.updated", bea.id, bea.id],
      ["user.updated", abe.id, abe.id],
      ["user.invited", ivy.id, ivy.id],
      ["user.invited", ivy.id, ivy.id],
    ]);
    const find = (action: string, userId: string) => entries.find((entry) => entry.action === action && entry.userId === userId)!;
    expect(find("user.deactivated", abe.id)).toMatchObject({ actor: byAda, before: { active: true }, after: { active: false }, clientAddress: expect.stringMatching(/127\.0\.0\.1/) });
    expect(find("user.updated", abe.id)).toMatchObject({ before: { gameIds: [tenant.games.galaxy!.id] }, after: { gameIds: [tenant.games.galaxy!.id, tenant.games.nebula!.id] } });
    expect(entries.filter((entry) => entry.action === "user.updated" && entry.userId === bea.id).map((entry) => [entry.before?.role, entry.after?.role])).toEqual([["admin", "agent"], ["agent", "admin"]]);
    expect(find("user.invited", ivy.id)).toMatchObject({ before: { email: ivy.email }, after: { role: "agent", gameIds: [tenant.games.nebula!.id] } });
    expect(JSON.stringify(entries)).not.toMatch(/token|#token=|[0-9a-f]{64}/);
  });
});
