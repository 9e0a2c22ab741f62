// Single sign-on end to end: the real gateway and content service in front of a real OpenID
// provider (oidc-provider) started here. Code flow with PKCE, state and nonce; the verified
// email matched to a user of the company, or a new agent just in time; the provider's second
// factor standing for the company's two-factor requirement; every refusal a redirect to the
// sign-in page with an error code and an audit entry; the client secret never in the database.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectBus, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createDb, sql, type Kysely } from "@support/db";
import { URI, type TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenIdProvider, type TestOpenIdProvider } from "./openid-provider.ts";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const CLIENT_SECRET = `client-secret-${randomUUID()}`;
const run = randomUUID().slice(0, 8);
const studioEmail = `ada-${run}@studio.example`;
const strictEmail = `carl-${run}@strict.example`;
const enrolledEmail = `dora-${run}@studio.example`;
const otherEmail = `olga-${run}@elsewhere.example`;
const jitDomain = `jit-${run}.example`;

let stack: Stack;
let provider: TestOpenIdProvider;
let studio: TenantResult;
let jit: TenantResult;
let strict: TenantResult;
let db: Kysely<unknown>;
let observer: NatsConnection;
let secretsDir: string;
const contentEvents: EventEnvelope[] = [];

const singleSignOn = (extra: Record<string, unknown> = {}) => ({ issuer: provider.issuer, clientId: provider.clientId, clientSecretKey: "test-provider", ...extra });

beforeAll(async () => {
  // The Secret content-sso as the cluster mounts it: one file per key (this one ends with a newline, as files do).
  secretsDir = await mkdtemp(join(tmpdir(), "sso-secrets-"));
  await writeFile(join(secretsDir, "test-provider"), `${CLIENT_SECRET}\n`, { mode: 0o600 });
  // Every test here starts a sign-in from one address: more than sign-in's per-address limit allows.
  stack = await startStack({ env: { SSO_CLIENTS_DIR: secretsDir }, gateway: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 1000 } });
  app = `${stack.url}/app`;
  provider = await startOpenIdProvider({ redirectUri: `${stack.url}/agent-api/sso/callback`, clientSecret: CLIENT_SECRET });
  studio = await stack.applyTenant({
    company: { name: "SSO Studio", singleSignOn: singleSignOn() },
    users: [
      { ref: "ada", name: "Ada Agent", email: studioEmail, role: "agent" },
      { ref: "dora", name: "Dora Double", email: enrolledEmail, role: "agent" },
    ],
  });
  jit = await stack.applyTenant({ company: { name: "SSO Just in time", singleSignOn: singleSignOn({ allowJustInTimeUsers: true, emailDomains: [jitDomain] }) } });
  strict = await stack.applyTenant({
    company: { name: "SSO Strict", requireTwoFactor: true, singleSignOn: singleSignOn() },
    users: [{ ref: "carl", name: "Carl Careful", email: strictEmail, role: "admin" }],
  });
  await stack.applyTenant({ company: { name: "SSO Elsewhere" }, users: [{ ref: "olga", name: "Olga Other", email: otherEmail }] });
  db = createDb({ url: stack.infra.databaseUrl, schema: "content", maxConnections: 2 });
  observer = await connectBus(stack.infra.natsUrl, "single-sign-on-observer");
  const subscription = observer.subscribe(`${stack.infra.natsPrefix}content.>`);
  void (async () => {
    for await (const message of subscription) contentEvents.push(message.json<EventEnvelope>());
  })();
}, 120_000);
afterAll(async () => {
  await observer?.drain();
  await db?.destroy();
  await provider?.stop();
  await stack?.stop();
  if (secretsDir) await rm(secretsDir, { recursive: true, force: true });
});

const sessionCookieOf = (response: StackResponse) => /(?:^|, )(support_session=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
const ssoCookieOf = (response: StackResponse) => /(?:^|, )(support_sso=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];

/** A provider account with this email (verified unless told otherwise); answers its id. */
function account(email: string, claims: { email_verified?: boolean; name?: string } = {}): string {
  const id = `acct-${randomUUID()}`;
  provider.accounts.set(id, { email, email_verified: true, name: "Someone", ...claims });
  return id;
}

/** GET /agent-api/sso/start: the redirect to the provider and the attempt cookie. */
async function start(query: string) {
  const started = await stack.request(`/agent-api/sso/start?${query}`);
  expect(started.status, started.text).toBe(303);
  const ssoCookie = ssoCookieOf(started);
  expect(ssoCookie).toBeDefined();
  return { location: started.headers.get("location")!, ssoCookie: ssoCookie! };
}

/** The browser's round trip through the provider: the callback's path and query it comes back with. */
async function throughProvider(authorizationUrl: string, login: { accountId: string; amr?: string[]; acr?: string }): Promise<string> {
  provider.nextLogin(login);
  const back = await provider.follow(authorizationUrl);
  expect(back.startsWith(`${stack.url}/agent-api/sso/callback?`), back).toBe(true);
  return back.slice(stack.url.length);
}

/** The support application's address: the console the gateway serves at /app (the stack sets no SUPPORT_APP_URL). */
let app: string;

const callback = (path: string, cookie?: string) => stack.request(path, { headers: cookie ? { cookie } : {} });

/** A whole sign-in: start (for the company), the provider, the callback with the attempt cookie. */
async function signInThroughProvider(companyId: string, login: { accountId: string; amr?: string[]; acr?: string }, returnTo?: string) {
  const { location, ssoCookie } = await start(`company=${companyId}${returnTo ? `&next=${encodeURIComponent(returnTo)}` : ""}`);
  return callback(await throughProvider(location, login), ssoCookie);
}

const refusedWith = (response: StackResponse, code: string) => {
  expect(response.status, response.text).toBe(303);
  expect(response.headers.get("location")).toBe(`${app}/sign-in?error=${code}`);
  expect(sessionCookieOf(response)).toBeUndefined();
  // The attempt cookie is cleared whatever the outcome.
  expect(response.headers.get("set-cookie")).toContain("support_sso=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
};

async function lastAudit(companyId: string, action: string) {
  const { rows } = await sql<{ user_id: string | null; detail: Record<string, unknown> }>`
    select user_id, detail from content.audit_log where company_id = ${companyId} and action = ${action} order by id desc limit 1`.execute(db);
  return rows[0];
}

describe("single sign-on of an existing user", () => {
  it("sends the browser to the provider with the code flow, PKCE S256, state, nonce and a short-lived attempt cookie", async () => {
    const started = await stack.request(`/agent-api/sso/start?company=${studio.companyId}`);
    expect(started.status).toBe(303);
    expect(started.headers.get("set-cookie")).toMatch(/^support_sso=[\w-]{43}; Path=\/; Max-Age=(599|600); HttpOnly; SameSite=Lax$/);
    const url = new URL(started.headers.get("location")!);
    expect(url.origin).toBe(provider.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: provider.clientId,
      response_type: "code",
      redirect_uri: `${stack.url}/agent-api/sso/callback`,
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.stringMatching(/^[\w-]{20,}$/),
      nonce: expect.stringMatching(/^[\w-]{20,}$/),
    });
    expect(url.searchParams.get("scope")?.split(" ")).toContain("openid");
  });

  it("signs in with the provider: a new session whose cookie works on GET /agent-api/me, landing on the console's page asked for", async () => {
    const answer = await signInThroughProvider(studio.companyId, { accountId: account(studioEmail.toUpperCase()) }, "/tickets?view=mine");
    expect(answer.status, answer.text).toBe(303);
    expect(answer.headers.get("location")).toBe(`${app}/tickets?view=mine`);
    const cookie = sessionCookieOf(answer);
    expect(cookie).toBeDefined();
    const me = await stack.request("/agent-api/me", { headers: { cookie: cookie! } });
    expect(me.status, me.text).toBe(200);
    expect(me.body).toMatchObject({ user: { id: studio.users.ada, email: studioEmail, role: "agent" }, companyId: studio.companyId, session: { scope: "full" } });
    expect(await lastAudit(studio.companyId, "sign_in.succeeded")).toMatchObject({ user_id: studio.users.ada, detail: { method: "sso", providerAssertedMfa: false } });
  });

  it("lands on SUPPORT_APP_URL when it is set, through any replica", async () => {
    const replica = await stack.startGateway({ SUPPORT_APP_URL: `${stack.url}/app/` });
    try {
      const started = await replica.request(`/agent-api/sso/start?company=${studio.companyId}&next=%2Faccount`);
      expect(started.status).toBe(303);
      // The callback the provider knows is on the application's origin, whichever replica answered.
      expect(new URL(started.headers.get("location")!).searchParams.get("redirect_uri")).toBe(`${stack.url}/agent-api/sso/callback`);
      const path = await throughProvider(started.headers.get("location")!, { accountId: account(studioEmail) });
      const answer = await replica.request(path, { headers: { cookie: ssoCookieOf(started)! } });
      expect(answer.headers.get("location")).toBe(`${stack.url}/app/account`);
      expect((await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(answer)! } })).status).toBe(200);
    } finally {
      await replica.stop();
    }
  });

  it("finds the company from the email's domain only when a company lists it", async () => {
    const unknown = await stack.request(`/agent-api/sso/start?email=${encodeURIComponent(`someone@nowhere-${run}.example`)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "not_found" });
    const { location } = await start(`email=${encodeURIComponent(`new@${jitDomain}`)}`);
    expect(new URL(location).searchParams.get("login_hint")).toBe(`new@${jitDomain}`);
  });

  it("refuses a return path that could leave the application, and a company without single sign-on", async () => {
    for (const returnTo of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "relative"]) {
      const answer = await stack.request(`/agent-api/sso/start?company=${studio.companyId}&next=${encodeURIComponent(returnTo)}`);
      expect(answer.status, returnTo).toBe(400);
    }
    const none = await stack.request(`/agent-api/sso/start?company=${randomUUID()}`);
    expect(none.status).toBe(404);
  });
});

describe("the attempt, its state and nonce", () => {
  it("refuses a tampered state, and the attempt is used up by that refusal", async () => {
    const { location, ssoCookie } = await start(`company=${studio.companyId}`);
    const path = await throughProvider(location, { accountId: account(studioEmail) });
    const tampered = path.replace(/state=([\w-]+)/, (_m, state: string) => `state=${state.slice(0, -2)}xx`);
    expect(tampered).not.toBe(path);
    refusedWith(await callback(tampered, ssoCookie), "sso_invalid_state");
    expect(await lastAudit(studio.companyId, "sign_in.failed")).toMatchObject({ detail: { method: "sso", reason: "invalid_state" } });
    // The genuine answer after that: the attempt is gone.
    refusedWith(await callback(path, ssoCookie), "sso_invalid_state");
  });

  it("refuses a callback without the attempt cookie, with another attempt's cookie, and replayed after it signed in", async () => {
    const first = await start(`company=${studio.companyId}`);
    const second = await start(`company=${studio.companyId}`);
    const secondPath = await throughProvider(second.location, { accountId: account(studioEmail) });
    refusedWith(await callback(secondPath), "sso_invalid_state");
    // The first attempt's cookie does not fit the second attempt's state.
    refusedWith(await callback(secondPath, first.ssoCookie), "sso_invalid_state");
    const signedIn = await callback(secondPath, second.ssoCookie);
    expect(signedIn.status).toBe(303);
    expect(sessionCookieOf(signedIn)).toBeDefined();
    refusedWith(await callback(secondPath, second.ssoCookie), "sso_invalid_state");
  });

  it("checks the nonce of the ID token against the attempt's", async () => {
    const { location, ssoCookie } = await start(`company=${studio.companyId}`);
    const nonce = new URL(location).searchParams.get("nonce")!;
    // As if the ID token had been minted for another attempt: the nonce kept here differs.
    await sql`update content.single_sign_on_attempts set nonce = ${`${nonce}-other`} where nonce = ${nonce}`.execute(db);
    refusedWith(await callback(await throughProvider(location, { accountId: account(studioEmail) }), ssoCookie), "sso_provider_error");
    expect(await lastAudit(studio.companyId, "sign_in.failed")).toMatchObject({ detail: { method: "sso", reason: "provider_error" } });
  });

  it("proves the code with the PKCE verifier: another verifier gets no tokens", async () => {
    const { location, ssoCookie } = await start(`company=${studio.companyId}`);
    const state = new URL(location).searchParams.get("state")!;
    await sql`update content.single_sign_on_attempts set code_verifier = ${"x".repeat(43)} where state = ${state}`.execute(db);
    refusedWith(await callback(await throughProvider(location, { accountId: account(studioEmail) }), ssoCookie), "sso_provider_error");
  });
});

describe("who the provider may sign in", () => {
  it("refuses an email the provider has not verified", async () => {
    refusedWith(await signInThroughProvider(studio.companyId, { accountId: account(studioEmail, { email_verified: false }) }), "sso_refused");
    expect(await lastAudit(studio.companyId, "sign_in.failed")).toMatchObject({ detail: { method: "sso", reason: "email_unverified" } });
  });

  it("refuses an unknown email when the company does not create users just in time", async () => {
    const email = `newbie-${run}@studio.example`;
    refusedWith(await signInThroughProvider(studio.companyId, { accountId: account(email) }), "sso_refused");
    expect(await lastAudit(studio.companyId, "sign_in.failed")).toMatchObject({ detail: { method: "sso", reason: "no_user", email } });
    const { rows } = await sql`select id from content.users where lower(email) = ${email}`.execute(db);
    expect(rows).toHaveLength(0);
  });

  it("refuses the email of another company's user, even where users are created just in time", async () => {
    refusedWith(await signInThroughProvider(studio.companyId, { accountId: account(otherEmail) }), "sso_refused");
    expect(await lastAudit(studio.companyId, "sign_in.failed")).toMatchObject({ detail: { reason: "email_of_another_company" } });
    // The just-in-time company lists only its domain.
    refusedWith(await signInThroughProvider(jit.companyId, { accountId: account(otherEmail) }), "sso_refused");
    expect(await lastAudit(jit.companyId, "sign_in.failed")).toMatchObject({ detail: { reason: "email_domain_not_allowed" } });
  });

  it("creates an agent just in time when the company allows it, publishing content.user.created", async () => {
    const email = `jill-${run}@${jitDomain}`;
    const answer = await signInThroughProvider(jit.companyId, { accountId: account(email, { name: "Jill Justin" }) });
    expect(answer.status, answer.text).toBe(303);
    expect(answer.headers.get("location")).toBe(`${app}/`);
    const me = await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(answer)! } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { name: "Jill Justin", email, role: "agent" }, companyId: jit.companyId, gameIds: [] });
    const userId = (me.body as { user: { id: string } }).user.id;
    expect(await lastAudit(jit.companyId, "user.created_by_single_sign_on")).toMatchObject({ user_id: userId, detail: { role: "agent" } });
    await expect.poll(() => contentEvents.find((event) => event.type === "content.user.created" && event.data.id === userId), { timeout: 10_000 }).toMatchObject({
      companyId: jit.companyId,
      data: { email, role: "agent", active: true },
    });
    // The next sign-in finds the same user.
    const again = await signInThroughProvider(jit.companyId, { accountId: account(email) });
    const meAgain = await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(again)! } });
    expect((meAgain.body as { user: { id: string } }).user.id).toBe(userId);
  });
});

describe("two-factor and the provider's second factor", () => {
  it("gives a session limited to enrolment when the company requires two-factor and the provider asserted none", async () => {
    const answer = await signInThroughProvider(strict.companyId, { accountId: account(strictEmail), amr: ["pwd"] });
    const me = await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(answer)! } });
    expect(me.body).toMatchObject({ session: { scope: "two_factor_enrolment" }, twoFactor: { enabled: false, required: true } });
  });

  it("gives a full session when the provider asserts a second factor (amr otp or mfa)", async () => {
    for (const amr of [["pwd", "otp"], ["mfa"]]) {
      const answer = await signInThroughProvider(strict.companyId, { accountId: account(strictEmail), amr });
      const me = await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(answer)! } });
      expect(me.body, amr.join()).toMatchObject({ session: { scope: "full" }, twoFactor: { enabled: false, required: true } });
    }
    expect(await lastAudit(strict.companyId, "sign_in.succeeded")).toMatchObject({ detail: { method: "sso", providerAssertedMfa: true } });
  });

  it("takes a phishing-resistant acr for a second factor, and an acr of a password alone for none", async () => {
    const strong = await signInThroughProvider(strict.companyId, { accountId: account(strictEmail), acr: "phr" });
    expect((await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(strong)! } })).body).toMatchObject({ session: { scope: "full" } });
    const weak = await signInThroughProvider(strict.companyId, { accountId: account(strictEmail), acr: "urn:test:password" });
    expect((await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(weak)! } })).body).toMatchObject({ session: { scope: "two_factor_enrolment" } });
  });
});

describe("a user with two-factor on", () => {
  it("gives the code after the provider, as after a password, unless the provider asserted a second factor", async () => {
    // Enrolled from a session single sign-on opened.
    const first = await signInThroughProvider(studio.companyId, { accountId: account(enrolledEmail) });
    const cookie = sessionCookieOf(first)!;
    const { csrfToken } = (await stack.request("/agent-api/me", { headers: { cookie } })).body as { csrfToken: string };
    const headers = { cookie, origin: stack.url, "x-csrf-token": csrfToken };
    const enrolment = await stack.request("/agent-api/two-factor/enrolment", { method: "POST", headers });
    const authenticator = URI.parse((enrolment.body as { otpauthUri: string }).otpauthUri) as TOTP;
    const confirmed = await stack.request("/agent-api/two-factor/enrolment/confirm", { method: "POST", headers, json: { code: authenticator.generate() } });
    expect(confirmed.status, confirmed.text).toBe(200);

    const challenged = await signInThroughProvider(studio.companyId, { accountId: account(enrolledEmail), amr: ["pwd"] }, "/tickets");
    expect(challenged.status).toBe(303);
    expect(challenged.headers.get("location")).toBe(`${app}/sign-in?step=two_factor&next=%2Ftickets`);
    expect(sessionCookieOf(challenged)).toBeUndefined();
    const challenge = /(?:^|, )(support_2fa=[^;]+)/.exec(challenged.headers.get("set-cookie") ?? "")?.[1];
    expect(challenge).toBeDefined();
    // The code of the next step: the confirmation used the current one.
    const code = authenticator.generate({ timestamp: Date.now() + 30_000 });
    const done = await stack.request("/agent-api/sign-in/totp", { method: "POST", headers: { cookie: challenge!, origin: stack.url }, json: { code } });
    expect(done.status, done.text).toBe(204);
    expect((await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(done)! } })).body).toMatchObject({ user: { email: enrolledEmail }, twoFactor: { enabled: true } });

    const trusted = await signInThroughProvider(studio.companyId, { accountId: account(enrolledEmail), amr: ["hwk"] });
    expect(trusted.headers.get("location")).toBe(`${app}/`);
    expect((await stack.request("/agent-api/me", { headers: { cookie: sessionCookieOf(trusted)! } })).body).toMatchObject({ session: { scope: "full" }, twoFactor: { enabled: true } });
  });
});

describe("the client secret", () => {
  it("is kept only as the name of its key in the content service's Secret, never in the database", async () => {
    const { rows } = await sql<{ row: string }>`select to_jsonb(s)::text as row from content.company_single_sign_on s where company_id = ${studio.companyId}`.execute(db);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.row)).toMatchObject({ issuer: provider.issuer, client_id: provider.clientId, client_secret_key: "test-provider" });
    // No row of any table of content's schema holds the secret.
    const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'content' and table_type = 'BASE TABLE'`.execute(db);
    expect(tables.map((table) => table.name)).toContain("company_single_sign_on");
    for (const { name } of tables) {
      const { rows: found } = await sql`select 1 from ${sql.table(`content.${name}`)} as t where to_jsonb(t)::text like ${`%${CLIENT_SECRET}%`}`.execute(db);
      expect(found, name).toHaveLength(0);
    }
  });

  it("is read from the Secret at each use: a company whose key has no secret cannot start, until the secret is there", async () => {
    const later = await stack.applyTenant({ company: { name: "SSO Later", singleSignOn: singleSignOn({ clientSecretKey: `later-${run}` }) } });
    const refused = await stack.request(`/agent-api/sso/start?company=${later.companyId}`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: "unavailable" });
    expect(refused.text).not.toContain(secretsDir);
    await writeFile(join(secretsDir, `later-${run}`), CLIENT_SECRET);
    await start(`company=${later.companyId}`);
  });

  it("is refused in clear in a tenant file", async () => {
    await expect(stack.applyTenant({ company: { name: "Leaky", singleSignOn: { ...singleSignOn(), clientSecret: CLIENT_SECRET } } })).rejects.toThrow(/singleSignOn/);
  });
});
