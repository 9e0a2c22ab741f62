// Two-factor sign-in on the content side, against real Postgres: enrolment and its confirmation,
// sign-in with a TOTP code (the current step ± 1, each step once) or a recovery code (once),
// failures counted toward the lockout, the company requirement, an operator's reset, the secret
// encrypted at rest, and the audit log.
import { randomBytes, randomUUID } from "node:crypto";
import { AgentAccessService } from "@support/proto";
import { createServiceClient } from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { beginSignIn, getAgentSession, setUserPassword, signIn, type LiveAgentSession } from "../src/agents/agent-access.service.ts";
import { createTotpSecretBox, totpSecretBoxFor } from "../src/agents/two-factor-secret-box.ts";
import { completeTwoFactorSignIn, confirmTwoFactorEnrolment, resetUserTwoFactor, startTwoFactorEnrolment, type TwoFactorContext } from "../src/agents/two-factor.service.ts";
import { totpCode } from "../src/agents/two-factor.ts";
import { createUser } from "../src/users/user.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";
import { seedCompany } from "./fixtures.ts";

const PASSWORD = "correct horse battery staple";
let ctx: ContentTestContext;
let access: TwoFactorContext;

beforeAll(async () => {
  ctx = await startContent();
  access = {
    db: ctx.db,
    config: {
      ...ctx.config,
      AGENT_SESSION_IDLE_SECONDS: 3600,
      AGENT_SESSION_MAX_SECONDS: 86_400,
      SIGN_IN_MAX_FAILURES_PER_ACCOUNT: 3,
      SIGN_IN_MAX_FAILURES_PER_ADDRESS: 100,
      SIGN_IN_FAILURE_WINDOW_MINUTES: 15,
      SIGN_IN_LOCK_MINUTES: 15,
    },
    // The running service's box (the RPC test reads what these functions wrote).
    secrets: totpSecretBoxFor(ctx.config.TOTP_ENCRYPTION_KEY),
    issuer: "Player Support",
  };
});
afterAll(() => ctx?.stop());

/** The middle of a 30-second step, `steps` steps from a fixed recent one. */
const base = Math.floor(Date.now() / 30_000) * 30_000 + 15_000;
const at = (steps: number, extraMs = 0) => new Date(base + steps * 30_000 + extraMs);
const address = () => `10.5.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
const input = (email: string, password = PASSWORD) => ({ email, password, clientAddress: address(), userAgent: "test" });

async function userWithPassword(options: { requireTwoFactor?: boolean } = {}) {
  const company = await seedCompany(ctx.db, { requireTwoFactor: options.requireTwoFactor ?? false });
  const email = `tf-${randomUUID().slice(0, 8)}@studio.example`;
  const user = await createUser(ctx.db, company.id, { name: "Tess Factor", email, gameIds: [] });
  await setUserPassword(access, email, PASSWORD);
  return { company, user, email };
}

/** A user with two-factor on (enrolled at step 0): the secret and recovery codes. */
async function enrolledUser(options: { requireTwoFactor?: boolean; step?: number } = {}) {
  const who = await userWithPassword(options);
  const when = at(options.step ?? 0);
  const { token } = await signIn(access, input(who.email), when);
  const { secret } = await startTwoFactorEnrolment(access, token, "10.0.0.1", when);
  const { recoveryCodes } = await confirmTwoFactorEnrolment(access, { sessionToken: token, code: totpCode(secret, when), clientAddress: "10.0.0.1", userAgent: "test" }, when);
  return { ...who, secret, recoveryCodes };
}

/** The password step of a sign-in for a user with two-factor on: the challenge. */
async function challenge(email: string, now: Date) {
  const result = await beginSignIn(access, input(email), now);
  if (!("challenge" in result)) throw new Error("expected a two-factor challenge");
  return result.challenge;
}

const second = (challengeToken: string, code: string, now: Date, clientAddress = "10.6.0.1") =>
  completeTwoFactorSignIn(access, { challenge: challengeToken, code, clientAddress, userAgent: "test" }, now);

async function actionsOf(userId: string) {
  const rows = await ctx.db.selectFrom("audit_log").select(["action", "detail"]).where("user_id", "=", userId).orderBy("id").execute();
  return rows.map((row) => row.action);
}

describe("enrolment", () => {
  it("gives an otpauth:// URI, turns two-factor on with a right code, returns ten recovery codes and replaces the session", async () => {
    const { email, user } = await userWithPassword();
    const { token } = await signIn(access, input(email), at(0));
    const started = await startTwoFactorEnrolment(access, token, "10.0.0.1", at(0));
    expect(started.otpauthUri).toMatch(/^otpauth:\/\/totp\/Player%20Support:tf-[\w-]+%40studio\.example\?issuer=Player%20Support&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/);
    expect(started.otpauthUri).toContain(`secret=${started.secret}`);
    expect((await getAgentSession(access, token, at(0))).twoFactor).toEqual({ enabled: false, required: false });

    // A wrong code is refused and changes nothing.
    await expect(confirmTwoFactorEnrolment(access, { sessionToken: token, code: "000000", clientAddress: "10.0.0.1", userAgent: "t" }, at(0))).rejects.toMatchObject({
      code: "invalid_argument", details: { issues: [{ path: "/code" }] },
    });
    const confirmed = await confirmTwoFactorEnrolment(access, { sessionToken: token, code: totpCode(started.secret, at(0)), clientAddress: "10.0.0.1", userAgent: "t" }, at(0));
    expect(confirmed.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.recoveryCodes).size).toBe(10);
    for (const code of confirmed.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    // The session the enrolment was made in is replaced by a new one.
    expect(confirmed.token).not.toBe(token);
    await expect(getAgentSession(access, token, at(0))).rejects.toMatchObject({ code: "unauthenticated" });
    expect((await getAgentSession(access, confirmed.token, at(0))).twoFactor).toEqual({ enabled: true, required: false });

    // Recovery codes are stored only as hashes.
    const stored = await ctx.db.selectFrom("user_recovery_codes").select("code_hash").where("user_id", "=", user.id).execute();
    expect(stored).toHaveLength(10);
    for (const code of confirmed.recoveryCodes) expect(JSON.stringify(stored)).not.toContain(code.replaceAll("-", ""));

    // Enrolling again while on is refused.
    await expect(startTwoFactorEnrolment(access, confirmed.token, "10.0.0.1", at(0))).rejects.toMatchObject({ code: "failed_precondition", details: { type: "TWO_FACTOR_ALREADY_ENABLED" } });
    expect(await actionsOf(user.id)).toEqual(["password.set", "sign_in.succeeded", "two_factor.enrolment_started", "two_factor.enrolment_failed", "two_factor.enabled"]);
  });

  it("stores the secret encrypted (AES-256-GCM, bound to the user): the column holds neither the secret nor its bytes", async () => {
    const { user, secret } = await enrolledUser();
    const row = await ctx.db.selectFrom("user_two_factor").selectAll().where("user_id", "=", user.id).executeTakeFirstOrThrow();
    expect(row.secret_sealed).toMatch(/^v1\.[A-Za-z0-9+/]+=*$/);
    expect(row.secret_sealed).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(access.secrets.open(row.secret_sealed, user.id)).toBe(secret);
    // Copied onto another user, it does not open; under another key neither.
    expect(() => access.secrets.open(row.secret_sealed, randomUUID())).toThrow();
    expect(() => createTotpSecretBox(randomBytes(32)).open(row.secret_sealed, user.id)).toThrow();
  });

  it("needs a started enrolment to confirm", async () => {
    const { email } = await userWithPassword();
    const { token } = await signIn(access, input(email), at(0));
    await expect(confirmTwoFactorEnrolment(access, { sessionToken: token, code: "123456", clientAddress: "", userAgent: "" }, at(0))).rejects.toMatchObject({ details: { type: "TWO_FACTOR_NOT_ENROLLING" } });
  });
});

describe("signing in with two-factor on", () => {
  it("answers the password with a challenge and no session, and opens a session with a code of the current step", async () => {
    const { email, user, secret } = await enrolledUser();
    const sessionsBefore = await ctx.db.selectFrom("agent_sessions").select("id").where("user_id", "=", user.id).where("ended_at", "is", null).execute();
    const ch = await challenge(email, at(2));
    expect(ch.expiresAt).toEqual(new Date(at(2).getTime() + 300_000));
    // The password step opened no session.
    expect(await ctx.db.selectFrom("agent_sessions").select("id").where("user_id", "=", user.id).where("ended_at", "is", null).execute()).toHaveLength(sessionsBefore.length);
    await expect(signIn(access, input(email), at(2))).rejects.toMatchObject({ details: { type: "TWO_FACTOR_REQUIRED" } });

    const done = await second(ch.token, totpCode(secret, at(2)), at(2));
    expect(done.live.user.id).toBe(user.id);
    expect(done.live.session.scope).toBe("full");
    expect((await getAgentSession(access, done.token, at(2))).user.id).toBe(user.id);
    // The challenge is single-use.
    await expect(second(ch.token, totpCode(secret, at(3)), at(3))).rejects.toMatchObject({ code: "unauthenticated", message: expect.stringContaining("sign in again") });
    const audit = await ctx.db.selectFrom("audit_log").select(["action", "detail"]).where("user_id", "=", user.id).orderBy("id").execute();
    expect(audit.at(-1)).toMatchObject({ action: "sign_in.succeeded", detail: { method: "totp" } });
    expect(audit.map((row) => row.action)).toContain("two_factor.challenged");
  });

  it("accepts the codes of the previous and the next step, not two steps away", async () => {
    const { email, secret } = await enrolledUser();
    for (const [offset, ok] of [[-2, false], [2, false], [-1, true], [1, true]] as const) {
      const now = at(10 + offset * 2);
      const ch = await challenge(email, now);
      const attempt = second(ch.token, totpCode(secret, new Date(now.getTime() + offset * 30_000)), now);
      if (ok) expect((await attempt).token, String(offset)).toBeTruthy();
      else await expect(attempt, String(offset)).rejects.toMatchObject({ code: "unauthenticated", message: "The code is wrong" });
    }
  });

  it("refuses a replayed code (a step the user used already), and an earlier step after a later one", async () => {
    const { email, secret } = await enrolledUser();
    const code = totpCode(secret, at(20));
    await second((await challenge(email, at(20))).token, code, at(20));
    await expect(second((await challenge(email, at(20))).token, code, at(20, 5000))).rejects.toMatchObject({ code: "unauthenticated", message: "The code is wrong" });
    // Step 21 used, then step 20's neighbour code (still within ±1 of now) is refused too.
    await second((await challenge(email, at(21))).token, totpCode(secret, at(21)), at(21));
    await expect(second((await challenge(email, at(21))).token, totpCode(secret, at(20)), at(21))).rejects.toMatchObject({ code: "unauthenticated" });
    // The confirmation's code counts as used as well.
    const again = await enrolledUser();
    await expect(second((await challenge(again.email, at(0))).token, totpCode(again.secret, at(0)), at(0))).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("takes a recovery code once, in any case and with or without dashes", async () => {
    const { email, user, recoveryCodes } = await enrolledUser();
    const [first, secondCode] = recoveryCodes as [string, string];
    const done = await second((await challenge(email, at(30))).token, ` ${first.toUpperCase()} `, at(30));
    expect(done).toMatchObject({ recoveryCodeUsed: true, recoveryCodesLeft: 9 });
    await expect(second((await challenge(email, at(31))).token, first, at(31))).rejects.toMatchObject({ code: "unauthenticated", message: "The code is wrong" });
    expect((await second((await challenge(email, at(32))).token, secondCode.replaceAll("-", ""), at(32))).recoveryCodesLeft).toBe(8);
    const actions = await actionsOf(user.id);
    expect(actions.filter((action) => action === "two_factor.recovery_code_used")).toHaveLength(2);
    expect(actions).toContain("two_factor.failed");
  });

  it("counts wrong codes toward the account's lockout (with the password's failures), and a right password does not clear the count", async () => {
    const { email, user, secret } = await enrolledUser();
    const now = at(40);
    await expect(beginSignIn(access, input(email, "not the password"), now)).rejects.toMatchObject({ code: "unauthenticated" });
    const ch = await challenge(email, now);
    await expect(second(ch.token, "000000", now)).rejects.toMatchObject({ code: "unauthenticated" });
    // The third failure (a right password in between) locks the account.
    await expect(second(ch.token, "zzzz-zzzz-zzzz", now)).rejects.toMatchObject({ code: "rate_limited", details: { type: "SIGN_IN_LOCKED" } });
    // Locked: even a right code is refused, before it is checked, and so is the password.
    await expect(second(ch.token, totpCode(secret, now), now)).rejects.toMatchObject({ code: "rate_limited" });
    await expect(beginSignIn(access, input(email), now)).rejects.toMatchObject({ code: "rate_limited" });
    // After the lock, a sign-in with a code works and clears the count.
    const later = new Date(now.getTime() + 16 * 60_000);
    expect((await second((await challenge(email, later)).token, totpCode(secret, later), later)).token).toBeTruthy();
    const actions = await actionsOf(user.id);
    expect(actions.slice(-9)).toEqual([
      "sign_in.failed", "two_factor.challenged", "two_factor.failed", "two_factor.failed", "sign_in.locked_out", "sign_in.refused_locked", "sign_in.refused_locked",
      "two_factor.challenged", "sign_in.succeeded",
    ]);
  });

  it("refuses an expired or unknown challenge", async () => {
    const { email, secret } = await enrolledUser();
    const ch = await challenge(email, at(50));
    const late = new Date(at(50).getTime() + 301_000);
    await expect(second(ch.token, totpCode(secret, late), late)).rejects.toMatchObject({ code: "unauthenticated", message: expect.stringContaining("expired") });
    await expect(second("not-a-challenge", "123456", at(50))).rejects.toMatchObject({ code: "unauthenticated" });
  });
});

describe("a company that requires two-factor", () => {
  it("gives a user without it a session limited to enrolment, and a full one once enrolled", async () => {
    const { email, user } = await userWithPassword({ requireTwoFactor: true });
    const first = await signIn(access, input(email), at(60));
    expect(first.live.session.scope).toBe("two_factor_enrolment");
    expect(first.live.twoFactor).toEqual({ enabled: false, required: true });
    const { secret } = await startTwoFactorEnrolment(access, first.token, "10.0.0.1", at(60));
    const confirmed = await confirmTwoFactorEnrolment(access, { sessionToken: first.token, code: totpCode(secret, at(60)), clientAddress: "10.0.0.1", userAgent: "t" }, at(60));
    const live: LiveAgentSession = await getAgentSession(access, confirmed.token, at(60));
    expect(live.session.scope).toBe("full");
    expect(live.twoFactor).toEqual({ enabled: true, required: true });
    await expect(getAgentSession(access, first.token, at(60))).rejects.toMatchObject({ code: "unauthenticated" });
    const audit = await ctx.db.selectFrom("audit_log").select(["action", "detail"]).where("user_id", "=", user.id).where("action", "=", "sign_in.succeeded").execute();
    expect(audit[0]!.detail).toMatchObject({ method: "password", scope: "two_factor_enrolment" });
  });

  it("reads the setting from the tenant file's company.requireTwoFactor (default false)", async () => {
    expect((await seedCompany(ctx.db)).requireTwoFactor).toBe(false);
    const row = await ctx.db.selectFrom("companies").select("require_two_factor").where("id", "=", (await seedCompany(ctx.db, { requireTwoFactor: true })).id).executeTakeFirstOrThrow();
    expect(row.require_two_factor).toBe(true);
  });
});

describe("an operator's reset", () => {
  it("turns two-factor off, deletes the secret and recovery codes, ends the sessions (the enrolment's and a sign-in's), and the password alone signs in again", async () => {
    const { email, user, secret } = await enrolledUser();
    const done = await second((await challenge(email, at(70))).token, totpCode(secret, at(70)), at(70));
    const reset = await resetUserTwoFactor(access, email.toUpperCase(), at(70));
    expect(reset).toMatchObject({ user: { id: user.id }, hadTwoFactor: true, sessionsEnded: 2 });
    await expect(getAgentSession(access, done.token, at(70))).rejects.toMatchObject({ code: "unauthenticated" });
    for (const table of ["user_two_factor", "user_recovery_codes", "two_factor_challenges"] as const) {
      expect(await ctx.db.selectFrom(table).select("user_id").where("user_id", "=", user.id).execute(), table).toHaveLength(0);
    }
    expect((await signIn(access, input(email), at(71))).live.twoFactor.enabled).toBe(false);
    expect(await actionsOf(user.id)).toContain("two_factor.reset");
    await expect(resetUserTwoFactor(access, "nobody@studio.example")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("over RPC", () => {
  it("answers SignIn with a challenge, then CompleteTwoFactorSignIn with the session", async () => {
    // Enrolled ten steps ago: the code of the real current step is unused.
    const { email, user, secret } = await enrolledUser({ step: -10 });
    const client = createServiceClient(AgentAccessService, ctx.baseUrl);
    const first = await client.signIn({ email, password: PASSWORD, clientAddress: "10.3.3.3", userAgent: "vitest" });
    expect(first.sessionToken).toBe("");
    expect(first.session).toBeUndefined();
    expect(first.twoFactorChallenge).toMatch(/^[\w-]{43}$/);
    expect(await failureOf(client.completeTwoFactorSignIn({ challenge: first.twoFactorChallenge, code: "12345", clientAddress: "10.3.3.3", userAgent: "" }))).toMatchObject({ code: "unauthenticated" });
    const done = await client.completeTwoFactorSignIn({ challenge: first.twoFactorChallenge, code: totpCode(secret, new Date()), clientAddress: "10.3.3.3", userAgent: "vitest" });
    expect(done.session).toMatchObject({ user: { id: user.id }, scope: "full", twoFactorEnabled: true, twoFactorRequired: false });
  });
});
