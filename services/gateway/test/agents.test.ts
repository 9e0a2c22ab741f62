// Agents sign in to the support application end to end: the real gateway in front of the real
// content service (passwords, sessions, throttling) with its events on NATS, and a second gateway
// replica. A user's password is set the operators' way, with `pnpm admin users set-password`.
// Two-factor: enrolment, a code computed here with the same library as content, a replay, a
// recovery code, and an operator's reset.
import { randomUUID } from "node:crypto";
import { URI, type TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
let stack: Stack;
let tenant: TenantResult;
let other: TenantResult;
const email = `ada-${randomUUID().slice(0, 8)}@studio.example`;
const otherEmail = `olga-${randomUUID().slice(0, 8)}@elsewhere.example`;

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Agents Studio" },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy", slug: "galaxy", languages: ["en"] }, { ref: "farm", name: "Farm", slug: "farm", languages: ["en"] }],
    users: [{ ref: "ada", name: "Ada Agent", email, role: "agent", displayName: "Ada", games: ["galaxy"], skills: ["crash", "billing"] }],
    // After the users in the file: skills may name the file's tags wherever they stand.
    tags: [{ name: "billing", game: null, isSkill: true }, { name: "crash", game: "galaxy", isSkill: true }, { name: "bug", game: null }],
  });
  other = await stack.applyTenant({ company: { name: "Elsewhere" }, users: [{ ref: "olga", name: "Olga Other", email: otherEmail, role: "admin" }] });
  await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  await stack.admin(["users", "set-password", "--email", otherEmail], `${PASSWORD} too\n`);
}, 120_000);
afterAll(() => stack?.stop());

/** The gateway's own origin: the application's, as the browser would send it. */
const origin = (url: string) => new URL(url).origin;
const cookieOf = (response: StackResponse) => /^(support_session=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];

async function signIn(url = stack.url, password = PASSWORD, who = email) {
  const request = url === stack.url ? stack.request : (await stack.startGateway()).request;
  return request("/agent-api/sign-in", { method: "POST", headers: { origin: origin(url) }, json: { email: who, password } });
}

describe("an agent of the company", () => {
  it("signs in with the password an operator set, and sees who they are (with their skills), their company and their games", async () => {
    const response = await signIn();
    expect(response.status, response.text).toBe(204);
    expect(response.headers.get("set-cookie")).toMatch(/^support_session=[\w-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const me = await stack.request("/agent-api/me", { headers: { cookie: cookieOf(response)! } });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({
      user: { id: tenant.users.ada, name: "Ada Agent", displayName: "Ada", email, role: "agent", skills: ["crash", "billing"] },
      companyId: tenant.companyId,
      gameIds: [tenant.games.galaxy!.id],
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
    });
  });

  it("gets one answer for a wrong password and an unknown email", async () => {
    const wrong = await signIn(stack.url, "not the password at all");
    const unknown = await signIn(stack.url, PASSWORD, "nobody@studio.example");
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it("cannot use the session cookie on the public API, nor an API key on /agent-api", async () => {
    const cookie = cookieOf(await signIn())!;
    expect((await stack.request("/tickets", { headers: { cookie } })).status).toBe(403);
    const withKey = await stack.request("/agent-api/me", { key: tenant.apiKeys.main!, headers: { cookie } });
    expect(withKey.status).toBe(401);
  });

  it("signs out everywhere from one replica, and the other replica refuses the sessions at once", async () => {
    const replica = await stack.startGateway({}, { nats: true });
    const onReplica = await replica.request("/agent-api/sign-in", { method: "POST", headers: { origin: origin(replica.url) }, json: { email, password: PASSWORD } });
    const replicaCookie = cookieOf(onReplica)!;
    expect((await replica.request("/agent-api/me", { headers: { cookie: replicaCookie } })).status).toBe(200); // now cached there
    const here = cookieOf(await signIn())!;
    const me = (await stack.request("/agent-api/me", { headers: { cookie: here } })).body as { csrfToken: string };
    const out = await stack.request("/agent-api/sign-out-everywhere", { method: "POST", headers: { cookie: here, origin: origin(stack.url), "x-csrf-token": me.csrfToken } });
    expect(out.status, out.text).toBe(204);
    expect((await stack.request("/agent-api/me", { headers: { cookie: here } })).status).toBe(401);
    await expect.poll(async () => (await replica.request("/agent-api/me", { headers: { cookie: replicaCookie } })).status, { timeout: 5000 }).toBe(401);
    await replica.stop();
  });
});

describe("a user of another company", () => {
  it("signs in to their own company only", async () => {
    const response = await signIn(stack.url, `${PASSWORD} too`, otherEmail);
    expect(response.status, response.text).toBe(204);
    const me = await stack.request("/agent-api/me", { headers: { cookie: cookieOf(response)! } });
    expect(me.body).toMatchObject({ companyId: other.companyId, user: { role: "admin", skills: [] }, gameIds: [] });
    expect(JSON.stringify(me.body)).not.toContain(tenant.companyId);
  });

  it("reads, as an admin, their company's audit log only; an agent may not read it", async () => {
    const admin = cookieOf(await signIn(stack.url, `${PASSWORD} too`, otherEmail))!;
    const log = await stack.request("/agent-api/audit-log?limit=5", { headers: { cookie: admin } });
    expect(log.status, log.text).toBe(200);
    const { entries } = log.body as { entries: { action: string; userId: string | null }[] };
    expect(entries[0]).toMatchObject({ action: "sign_in.succeeded", userId: other.users.olga });
    // Olga's sign-ins and password, and the tenant file that created her company: nothing of another company.
    expect(entries.every((entry) => entry.userId === other.users.olga || (entry.action === "tenant.applied" && entry.userId === null))).toBe(true);
    const agent = cookieOf(await signIn())!;
    expect((await stack.request("/agent-api/audit-log", { headers: { cookie: agent } })).status).toBe(403);
  });
});

describe("sessions with short timeouts (idle 3 s, at most 7 s)", () => {
  let short: Stack;
  const shortEmail = `sam-${randomUUID().slice(0, 8)}@studio.example`;

  beforeAll(async () => {
    short = await startStack({ env: { AGENT_SESSION_IDLE_SECONDS: "3", AGENT_SESSION_MAX_SECONDS: "7" } });
    await short.applyTenant({ company: { name: "Short Sessions" }, users: [{ ref: "sam", name: "Sam Short", email: shortEmail }] });
    await short.admin(["users", "set-password", "--email", shortEmail], `${PASSWORD}\n`);
  }, 120_000);
  afterAll(() => short?.stop());

  const signInShort = async () => {
    const response = await short.request("/agent-api/sign-in", { method: "POST", headers: { origin: origin(short.url) }, json: { email: shortEmail, password: PASSWORD } });
    expect(response.status, response.text).toBe(204);
    return cookieOf(response)!;
  };
  const meStatus = async (cookie: string) => (await short.request("/agent-api/me", { headers: { cookie } })).status;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("ends an unused session after the idle timeout, and a used one at its absolute lifetime", async () => {
    const idle = await signInShort();
    const busy = await signInShort();
    const started = Date.now();
    // Used every half second, the busy one outlives the idle timeout; the idle one does not.
    while (Date.now() - started < 4000) {
      expect(await meStatus(busy)).toBe(200);
      await sleep(500);
    }
    expect(await meStatus(idle)).toBe(401);
    // Past 7 s from sign-in nothing keeps it alive.
    await sleep(Math.max(0, 7300 - (Date.now() - started)));
    expect(await meStatus(busy)).toBe(401);
  }, 30_000);
});

describe("invitations and password resets", () => {
  const inviteeEmail = `ivy-${randomUUID().slice(0, 8)}@studio.example`;
  const post = (path: string, json: unknown) => stack.request(path, { method: "POST", headers: { origin: origin(stack.url) }, json });
  const tokenIn = (text: string, page: string) => new RegExp(`${page}#token=([\\w-]+)`).exec(text)?.[1];

  it("mails an invitation whose link sets the first password once, after which the user signs in", async () => {
    const invited = await stack.admin<{ link: string; mailed: boolean }>(["users", "invite", "--company", tenant.companyId, "--email", inviteeEmail, "--name", "Ivy Invited", "--games", tenant.games.farm!.id]);
    expect(invited.mailed).toBe(true);
    const mail = await stack.smtp.waitForMail(inviteeEmail);
    const token = tokenIn(mail.text, "/app/welcome")!;
    expect(invited.link).toContain(token);

    const inspected = await post("/agent-api/links/inspect", { token });
    expect(inspected.status, inspected.text).toBe(200);
    expect(inspected.body).toMatchObject({ purpose: "invitation", email: inviteeEmail, name: "Ivy Invited" });
    const weak = await post("/agent-api/links/redeem", { token, password: "ivyivyivy" });
    expect(weak.status).toBe(400);
    expect(weak.body).toMatchObject({ details: { issues: [{ path: "/password" }] } });
    expect((await post("/agent-api/links/redeem", { token, password: PASSWORD })).status).toBe(204);
    const again = await post("/agent-api/links/redeem", { token, password: `${PASSWORD}!` });
    expect(again.status).toBe(404);
    expect((await signIn(stack.url, PASSWORD, inviteeEmail)).status).toBe(204);
  });

  it("mails a reset link on request, answers an unknown email alike, and the link sets a new password", async () => {
    const before = stack.smtp.mails.length;
    const unknown = await post("/agent-api/password-reset", { email: "nobody@studio.example" });
    const asked = await post("/agent-api/password-reset", { email: inviteeEmail });
    expect([unknown.status, asked.status]).toEqual([202, 202]);
    const mail = await stack.smtp.waitForMail(inviteeEmail, { after: before });
    const token = tokenIn(mail.text, "/app/reset-password")!;
    expect((await post("/agent-api/links/redeem", { token, password: "a new moon over the harbour" })).status).toBe(204);
    expect((await signIn(stack.url, PASSWORD, inviteeEmail)).status).toBe(401);
    expect((await signIn(stack.url, "a new moon over the harbour", inviteeEmail)).status).toBe(204);
    expect(stack.smtp.mails.filter((m) => m.to.includes("nobody@studio.example"))).toEqual([]);
  });
});

describe("two-factor (TOTP)", () => {
  const tfEmail = `tess-${randomUUID().slice(0, 8)}@studio.example`;
  const post = (path: string, init: { cookie?: string; csrf?: string; json?: unknown } = {}) =>
    stack.request(path, {
      method: "POST",
      headers: { origin: origin(stack.url), ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.csrf ? { "x-csrf-token": init.csrf } : {}) },
      ...(init.json !== undefined ? { json: init.json } : {}),
    });
  const challengeCookieOf = (response: StackResponse) => /^(support_2fa=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
  const sessionCookieOf = (response: StackResponse) => response.headers.getSetCookie().map((header) => /^(support_session=[^;]+)/.exec(header)?.[1]).find(Boolean);

  beforeAll(async () => {
    await stack.applyTenant({ company: { name: "Two Factor Studio" }, users: [{ ref: "tess", name: "Tess Factor", email: tfEmail, role: "admin" }] });
    await stack.admin(["users", "set-password", "--email", tfEmail], `${PASSWORD}\n`);
  }, 60_000);

  it("enrols with a QR code, signs in with a code (a replayed one refused) and with a recovery code once", async () => {
    // Signed in with the password, the user enrols.
    const first = await signIn(stack.url, PASSWORD, tfEmail);
    expect(first.status, first.text).toBe(204);
    const cookie = cookieOf(first)!;
    const me = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const enrolment = await post("/agent-api/two-factor/enrolment", { cookie, csrf: me.csrfToken });
    expect(enrolment.status, enrolment.text).toBe(200);
    const { otpauthUri, qrCode } = enrolment.body as { otpauthUri: string; qrCode: string };
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    // What an authenticator app does with the QR code's URI.
    const app = URI.parse(otpauthUri) as TOTP;
    expect(app).toMatchObject({ issuer: "Player Support", label: tfEmail, digits: 6, period: 30, algorithm: "SHA1" });

    const confirmed = await post("/agent-api/two-factor/enrolment/confirm", { cookie, csrf: me.csrfToken, json: { code: app.generate() } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    // The enrolment's session was replaced by a new one.
    const enrolled = cookieOf(confirmed)!;
    expect(enrolled).not.toBe(cookie);
    expect((await stack.request("/agent-api/me", { headers: { cookie } })).status).toBe(401);
    expect((await stack.request("/agent-api/me", { headers: { cookie: enrolled } })).body).toMatchObject({ twoFactor: { enabled: true } });

    // The password alone now opens no session: a challenge.
    const password = await signIn(stack.url, PASSWORD, tfEmail);
    expect(password.status, password.text).toBe(200);
    expect(password.body).toMatchObject({ twoFactorRequired: true });
    expect(cookieOf(password)).toBeUndefined();
    const challenge = challengeCookieOf(password)!;
    // The confirmation used the current step: the next one's code (within ±1 step) is fresh.
    const code = app.generate({ timestamp: Date.now() + 30_000 });
    const done = await post("/agent-api/sign-in/totp", { cookie: challenge, json: { code } });
    expect(done.status, done.text).toBe(204);
    const session = sessionCookieOf(done)!;
    expect((await stack.request("/agent-api/me", { headers: { cookie: session } })).body).toMatchObject({ user: { email: tfEmail }, session: { scope: "full" } });

    // The same code again, on a new challenge: a replay, refused.
    const again = challengeCookieOf(await signIn(stack.url, PASSWORD, tfEmail))!;
    const replayed = await post("/agent-api/sign-in/totp", { cookie: again, json: { code } });
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ code: "unauthenticated", message: "The code is wrong" });

    // A recovery code works once (the challenge is still good after a wrong code).
    const recovered = await post("/agent-api/sign-in/totp", { cookie: again, json: { code: recoveryCodes[0]!.toUpperCase() } });
    expect(recovered.status, recovered.text).toBe(204);
    const reused = await post("/agent-api/sign-in/totp", { cookie: challengeCookieOf(await signIn(stack.url, PASSWORD, tfEmail))!, json: { code: recoveryCodes[0]! } });
    expect(reused.status).toBe(401);

    // An operator resets it (a lost phone): the sessions end and the password alone signs in again.
    await stack.admin(["users", "reset-2fa", "--email", tfEmail]);
    // content.agent_sessions.ended reaches the gateway through NATS a moment later.
    await expect.poll(async () => (await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(recovered)! } })).status, { timeout: 5000 }).toBe(401);
    expect((await signIn(stack.url, PASSWORD, tfEmail)).status).toBe(204);
  });
});
