// Sign-in to the support application on the content side, against real Postgres and NATS:
// passwords and their rule, sessions (a new token each time, idle and absolute expiry, sign-out
// and sign-out everywhere with their events), throttling and lockout, and the audit log.
import { randomUUID } from "node:crypto";
import { connectBus, type EventEnvelope } from "@support/bus";
import { AgentAccessService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgentSession, readAuditLog, setUserPassword, signIn, signOut, signOutEverywhere, type AgentAccessContext } from "../src/agents/agent-access.service.ts";
import { tokenHash } from "../src/agents/agent-session.ts";
import { createTag } from "../src/tags/tag.service.ts";
import { createUser } from "../src/users/user.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

const PASSWORD = "correct horse battery staple";
let ctx: ContentTestContext;
let access: AgentAccessContext;

beforeAll(async () => {
  ctx = await startContent();
  access = {
    db: ctx.db,
    config: {
      ...ctx.config,
      AGENT_SESSION_IDLE_SECONDS: 3600,
      AGENT_SESSION_MAX_SECONDS: 86_400,
      SIGN_IN_MAX_FAILURES_PER_ACCOUNT: 3,
      SIGN_IN_MAX_FAILURES_PER_ADDRESS: 10,
      SIGN_IN_FAILURE_WINDOW_MINUTES: 15,
      SIGN_IN_LOCK_MINUTES: 15,
    },
  };
});
afterAll(() => ctx?.stop());

/** A company with one game and a user of the given role who has PASSWORD. */
async function agentWithPassword(role: "admin" | "agent" = "agent") {
  const company = await seedCompany(ctx.db);
  const game = await seedGame(ctx.db, company.id);
  const email = `agent-${randomUUID().slice(0, 8)}@studio.example`;
  await createTag(ctx.db, company.id, { gameId: game.game.id, name: "refunds", isSkill: true });
  const user = await createUser(ctx.db, company.id, { name: "Ada Agent", email, role, displayName: "Ada", gameIds: role === "agent" ? [game.game.id] : [], skills: ["refunds"] });
  await setUserPassword(access, email, PASSWORD);
  return { company, game, user, email };
}

const input = (email: string, password = PASSWORD, clientAddress = `10.0.0.${Math.floor(Math.random() * 200)}`) => ({ email, password, clientAddress, userAgent: "test" });

async function auditOf(userId: string) {
  return ctx.db.selectFrom("audit_log").select(["action", "actor", "client_address"]).where("user_id", "=", userId).orderBy("id").execute();
}

/** The events of a type published on NATS from now on (a plain subscription). */
async function listen(type: string) {
  const nc = await connectBus(ctx.infra.natsUrl, "agent-access-test");
  const received: EventEnvelope[] = [];
  nc.subscribe(`${ctx.infra.natsPrefix}${type}`, { callback: (_error, message) => void received.push(message.json<EventEnvelope>()) });
  await nc.flush();
  return { received, close: () => nc.drain() };
}

describe("passwords", () => {
  it("refuses a short or guessable password, naming /password, and stores only an argon2id hash", async () => {
    const company = await seedCompany(ctx.db);
    const email = `pw-${randomUUID().slice(0, 8)}@studio.example`;
    const user = await createUser(ctx.db, company.id, { name: "Pat Password", email, gameIds: [] });
    await expect(setUserPassword(access, email, "short")).rejects.toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/password", message: "must be at least 12 characters" }] } });
    await expect(setUserPassword(access, email, "password1234")).rejects.toMatchObject({ details: { issues: [{ path: "/password", message: expect.stringContaining("too easy to guess") }] } });
    // The user's own name and address count as guessable.
    await expect(setUserPassword(access, email, "pat password 2026")).rejects.toMatchObject({ details: { issues: [{ path: "/password" }] } });
    // No maximum below 64 characters.
    await setUserPassword(access, email, `${"horse battery staple ".repeat(5)}correct`);
    const stored = await ctx.db.selectFrom("user_credentials").select("password_hash").where("user_id", "=", user.id).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(stored.password_hash).not.toContain("horse");
  });

  it("is refused for an unknown email, and for an email that users of two companies have", async () => {
    await expect(setUserPassword(access, "nobody@studio.example", PASSWORD)).rejects.toMatchObject({ code: "not_found" });
    const shared = `shared-${randomUUID().slice(0, 8)}@studio.example`;
    for (let i = 0; i < 2; i++) await createUser(ctx.db, (await seedCompany(ctx.db)).id, { name: "Sam", email: shared, gameIds: [] });
    await expect(setUserPassword(access, shared, PASSWORD)).rejects.toMatchObject({ code: "failed_precondition", details: { type: "EMAIL_NOT_UNIQUE" } });
  });
});

describe("signing in", () => {
  it("opens a session with a new token at every sign-in, stored only as its hash, and returns the user with role and games", async () => {
    const { user, email, game } = await agentWithPassword();
    const first = await signIn(access, input(email.toUpperCase()));
    const second = await signIn(access, input(email));
    expect(first.token).not.toBe(second.token);
    expect(first.live.session.id).not.toBe(second.live.session.id);
    expect(first.live.user).toMatchObject({ id: user.id, role: "agent", displayName: "Ada", gameIds: [game.game.id] });
    const rows = await ctx.db.selectFrom("agent_sessions").select(["token_hash"]).where("user_id", "=", user.id).execute();
    expect(rows.map((row) => row.token_hash).sort()).toEqual([tokenHash(first.token), tokenHash(second.token)].sort());
    expect(JSON.stringify(rows)).not.toContain(first.token);
    expect((await getAgentSession(access, first.token)).user.id).toBe(user.id);
  });

  it("gives an admin every game of the company", async () => {
    const { email, company } = await agentWithPassword("admin");
    const other = await seedGame(ctx.db, company.id);
    const { live } = await signIn(access, input(email));
    expect(live.user.role).toBe("admin");
    expect(live.user.gameIds).toContain(other.game.id);
  });

  it("answers a wrong password, an unknown email and an inactive user the same way", async () => {
    const { email, user } = await agentWithPassword();
    const wrong = await signIn(access, input(email, "wrong password entirely")).catch((error: unknown) => error);
    const unknown = await signIn(access, input("nobody-at-all@studio.example")).catch((error: unknown) => error);
    await ctx.db.updateTable("users").set({ active: false }).where("id", "=", user.id).execute();
    const inactive = await signIn(access, input(email)).catch((error: unknown) => error);
    for (const error of [wrong, unknown, inactive]) expect(error).toMatchObject({ code: "unauthenticated", message: "The email or password is wrong" });
  });

  it("locks an account after its failures, before checking the password, and lets it in once the lock ends", async () => {
    const { email, user } = await agentWithPassword();
    const now = new Date();
    for (let i = 0; i < 2; i++) await expect(signIn(access, input(email, "not the password"), now)).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(signIn(access, input(email, "not the password"), now)).rejects.toMatchObject({ code: "rate_limited", details: { type: "SIGN_IN_LOCKED", payload: { retryAfterSeconds: 900 } } });
    // Even the right password is refused while locked, from any address.
    await expect(signIn(access, input(email, PASSWORD, "10.9.9.9"), new Date(now.getTime() + 60_000))).rejects.toMatchObject({ code: "rate_limited", details: { payload: { retryAfterSeconds: 840 } } });
    const { live } = await signIn(access, input(email, PASSWORD, "10.9.9.9"), new Date(now.getTime() + 16 * 60_000));
    expect(live.user.id).toBe(user.id);
    expect((await auditOf(user.id)).map((entry) => entry.action)).toEqual([
      "password.set", "sign_in.failed", "sign_in.failed", "sign_in.failed", "sign_in.locked_out", "sign_in.refused_locked", "sign_in.succeeded",
    ]);
  });

  it("locks an address that fails on many accounts, unknown ones included", async () => {
    const address = `10.77.${Math.floor(Math.random() * 250)}.1`;
    const now = new Date();
    for (let i = 0; i < 9; i++) await expect(signIn(access, input(`probe-${i}@studio.example`, "x", address), now)).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(signIn(access, input("probe-9@studio.example", "x", address), now)).rejects.toMatchObject({ code: "rate_limited" });
    const { email } = await agentWithPassword();
    await expect(signIn(access, input(email, PASSWORD, address), now)).rejects.toMatchObject({ code: "rate_limited" });
    expect((await signIn(access, input(email, PASSWORD, "10.78.0.1"), now)).token).toBeTruthy();
  });
});

describe("sessions", () => {
  it("end when idle, and at their absolute lifetime even when used", async () => {
    const { email } = await agentWithPassword();
    const start = new Date();
    const idle = await signIn(access, input(email), start);
    await expect(getAgentSession(access, idle.token, new Date(start.getTime() + 61 * 60_000))).rejects.toMatchObject({ code: "unauthenticated" });

    const busy = await signIn(access, input(email), start);
    // Used every 50 minutes, it outlives the idle timeout...
    for (let minutes = 50; minutes < 24 * 60; minutes += 50) await getAgentSession(access, busy.token, new Date(start.getTime() + minutes * 60_000));
    // ...but not the absolute lifetime.
    await expect(getAgentSession(access, busy.token, new Date(start.getTime() + 24 * 3_600_000 + 1000))).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("end at sign-out and everywhere at once, each announced by content.agent_sessions.ended", async () => {
    const { email, user, company } = await agentWithPassword();
    const events = await listen("content.agent_sessions.ended");
    const [a, b, c] = [await signIn(access, input(email)), await signIn(access, input(email)), await signIn(access, input(email))];
    await signOut(access, a.token, "10.1.1.1");
    await signOut(access, a.token, "10.1.1.1"); // nothing more
    await expect(getAgentSession(access, a.token)).rejects.toMatchObject({ code: "unauthenticated" });
    expect(await signOutEverywhere(access, b.token, "10.1.1.1")).toBe(2);
    for (const session of [b, c]) await expect(getAgentSession(access, session.token)).rejects.toMatchObject({ code: "unauthenticated" });
    await expect.poll(() => events.received.filter((event) => event.companyId === company.id).length).toBe(2);
    await events.close();
    expect(events.received.filter((event) => event.companyId === company.id).map((event) => event.data)).toEqual([
      { userId: user.id, sessionIds: [a.live.session.id], reason: "signed_out" },
      { userId: user.id, sessionIds: expect.arrayContaining([b.live.session.id, c.live.session.id]), reason: "signed_out_everywhere" },
    ]);
    // A new password ends the sessions too.
    const d = await signIn(access, input(email));
    await setUserPassword(access, email, `${PASSWORD} again`);
    await expect(getAgentSession(access, d.token)).rejects.toMatchObject({ code: "unauthenticated" });
  });
});

describe("the audit log", () => {
  it("is read by the company's admins, newest first, a page at a time; agents may not", async () => {
    const { email: adminEmail, company } = await agentWithPassword("admin");
    const agentEmail = `colleague-${randomUUID().slice(0, 8)}@studio.example`;
    await createUser(ctx.db, company.id, { name: "Cole Colleague", email: agentEmail, gameIds: [] });
    await setUserPassword(access, agentEmail, PASSWORD);
    await expect(signIn(access, input(agentEmail, "not it at all"))).rejects.toMatchObject({ code: "unauthenticated" });
    const agent = await signIn(access, input(agentEmail));
    const admin = await signIn(access, input(adminEmail));

    const first = await readAuditLog(access, admin.token, { limit: 2, before: "" });
    expect(first.entries.map((entry) => entry.action)).toEqual(["sign_in.succeeded", "sign_in.succeeded"]);
    expect(first.entries[0]).toMatchObject({ userId: admin.live.user.id, actor: { type: "user", id: admin.live.user.id }, detail: { method: "password" } });
    const rest = await readAuditLog(access, admin.token, { limit: 50, before: first.nextBefore! });
    expect(rest.entries.map((entry) => entry.action)).toEqual(["sign_in.failed", "password.set", "password.set"]);
    expect(rest.nextBefore).toBeUndefined();
    // Nothing of another company, and never a secret.
    expect(JSON.stringify([...first.entries, ...rest.entries])).not.toContain(PASSWORD);
    await expect(readAuditLog(access, agent.token, { limit: 10, before: "" })).rejects.toMatchObject({ code: "permission_denied" });
    await expect(readAuditLog(access, admin.token, { limit: 500, before: "x" })).rejects.toMatchObject({
      code: "invalid_argument",
      details: { issues: [{ path: "/query/limit" }, { path: "/query/before" }] },
    });
  });
});

describe("over RPC", () => {
  it("signs in, reads the session and signs out; an unknown token is UNAUTHENTICATED", async () => {
    const { email, user } = await agentWithPassword();
    const client = createServiceClient(AgentAccessService, ctx.baseUrl);
    const signedIn = await client.signIn({ email, password: PASSWORD, clientAddress: "10.2.2.2", userAgent: "vitest" });
    expect(signedIn.session).toMatchObject({ user: { id: user.id, role: "agent", displayName: "Ada", email, skills: ["refunds"] }, csrfToken: expect.stringMatching(/^[\w-]{43}$/) });
    const read = await client.getAgentSession({ sessionToken: signedIn.sessionToken });
    expect(read.session?.id).toBe(signedIn.session?.id);
    await client.signOut({ sessionToken: signedIn.sessionToken, clientAddress: "10.2.2.2" });
    expect(await failureOf(client.getAgentSession({ sessionToken: signedIn.sessionToken }))).toMatchObject({ code: "unauthenticated" });
    expect(await failureOf(client.signIn({ email, password: "wrong wrong wrong", clientAddress: "10.2.2.2", userAgent: "" }))).toEqual({ code: "unauthenticated", message: "The email or password is wrong", issues: undefined });
  });
});
