// /agent-api through real HTTP against gateways whose content is an in-memory AgentAccessService
// (content's own tests cover passwords, lockouts and sessions): the cookie and its flags, the
// generic failures, CSRF, the separation from API keys, and sessions ended across replicas.
import { randomUUID } from "node:crypto";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { PlayersService } from "@support/proto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LOOPBACK_SESSION_COOKIE, SECURE_SESSION_COOKIE } from "../agent-api/cookie.ts";
import { requireFullSession } from "../agent-api/sessions.ts";
import { LOOPBACK_CHALLENGE_COOKIE, SECURE_CHALLENGE_COOKIE } from "../agent-api/two-factor.ts";
import { AGENT_COOKIE_REFUSED } from "../auth.ts";
import { AGENT_SESSIONS_ENDED } from "../events/agent-sessions-ended.consumer.ts";
import { validateResponse } from "../openapi/validation.ts";
import { FAKE_ENROLMENT_CODE, FakeAgentAccess, fakeNats, startTestGateway, type TestGateway } from "../test-helpers.ts";

type Init = Parameters<TestGateway["request"]>[1];

/** A request whose answer must match the OpenAPI document. */
async function call(t: TestGateway, operationId: string, path: string, init: Init = {}) {
  const response = await t.request(path, init);
  expect(validateResponse(operationId, response.status, response.body, response.headers), `${operationId} ${response.status} ${response.text}`).toBeNull();
  return response;
}

/** The session cookie's name=value and attributes from a Set-Cookie header. */
function parseSetCookie(header: string | null) {
  expect(header).not.toBeNull();
  const [pair, ...attributes] = header!.split(";").map((part) => part.trim());
  const eq = pair!.indexOf("=");
  return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}

describe("/agent-api on plain http on a loopback address (the request's own origin)", () => {
  const agentAccess = new FakeAgentAccess();
  const user = agentAccess.addUser({ role: "admin", skills: ["billing", "crash"] });
  let t: TestGateway;
  let origin: string;

  const signIn = async (body: unknown = { email: user.email, password: user.password }, headers: Record<string, string> = {}) =>
    call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: body, headers: { origin, ...headers } });
  /** Signs in and returns the Cookie header to send and the session's CSRF token. */
  const session = async () => {
    const response = await signIn();
    expect(response.status, response.text).toBe(204);
    const cookie = parseSetCookie(response.headers.get("set-cookie"));
    const cookieHeader = `${cookie.name}=${cookie.value}`;
    const me = await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: cookieHeader } });
    return { cookie: cookieHeader, token: cookie.value, csrf: (me.body as { csrfToken: string }).csrfToken };
  };

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, config: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
    origin = t.url;
  });
  afterAll(() => t.stop());
  afterEach(() => {
    agentAccess.lockedForSeconds = undefined;
  });

  it("signs in with 204 and sets support_session: HttpOnly, Path=/, SameSite=Lax, no Secure, no Domain, for the session's lifetime", async () => {
    const response = await signIn();
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    const cookie = parseSetCookie(response.headers.get("set-cookie"));
    expect(cookie.name).toBe(LOOPBACK_SESSION_COOKIE);
    expect(cookie.value).toBe(agentAccess.sessions.at(-1)!.token);
    expect(cookie.attributes).toEqual(expect.arrayContaining(["httponly", "path=/", "samesite=lax"]));
    expect(cookie.attributes).not.toContain("secure");
    expect(cookie.attributes.some((a) => a.startsWith("domain="))).toBe(false);
    const maxAge = Number(cookie.attributes.find((a) => a.startsWith("max-age="))!.slice("max-age=".length));
    expect(maxAge).toBeGreaterThan(7 * 86_400 - 60);
    expect(maxAge).toBeLessThanOrEqual(7 * 86_400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    // The client's address and user agent go to content (throttling, audit log).
    expect(agentAccess.signIns.at(-1)).toMatchObject({ email: user.email, clientAddress: "127.0.0.1" });
  });

  it("gives a new session at every sign-in and ends the one the browser still held", async () => {
    const first = await session();
    const second = await signIn(undefined, { cookie: first.cookie });
    const cookie = parseSetCookie(second.headers.get("set-cookie"));
    expect(cookie.value).not.toBe(first.token);
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: first.cookie } })).status).toBe(401);
  });

  it("answers a wrong password and an unknown email with the same generic 401, and sets no cookie", async () => {
    const wrong = await signIn({ email: user.email, password: "wrong password" });
    const unknown = await signIn({ email: "nobody@example.com", password: "whatever it is" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ code: "unauthenticated", message: "The email or password is wrong" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(unknown.headers.get("set-cookie")).toBeNull();
  });

  it("answers a locked sign-in with 429 and Retry-After", async () => {
    agentAccess.lockedForSeconds = 300;
    const response = await signIn();
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("300");
    expect(response.body).toMatchObject({ code: "rate_limited" });
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("validates the sign-in body (400) after the Origin check", async () => {
    expect((await signIn({ email: user.email })).status).toBe(400);
    expect((await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email } })).status).toBe(403);
  });

  it("GET /agent-api/me answers the user, company, games, CSRF token and session times", async () => {
    const { cookie } = await session();
    const stored = agentAccess.sessions.at(-1)!;
    const response = await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, role: "admin", skills: ["billing", "crash"], available: false, languages: [], capacity: 10 },
      companyId: user.companyId,
      gameIds: user.gameIds,
      csrfToken: stored.csrfToken,
      session: { createdAt: stored.createdAt.toISOString(), idleExpiresAt: expect.any(String), expiresAt: stored.expiresAt.toISOString(), scope: "full" },
      twoFactor: { enabled: false, required: false },
    });
  });

  it("GET /agent-api/me without a live session is 401: no cookie, garbage, an unknown token, the other cookie name", async () => {
    const { token } = await session();
    for (const cookie of [undefined, `${LOOPBACK_SESSION_COOKIE}=x`, `${LOOPBACK_SESSION_COOKIE}=${"A".repeat(43)}`, `${SECURE_SESSION_COOKIE}=${token}`]) {
      const response = await call(t, "getAgentMe", "/agent-api/me", cookie === undefined ? {} : { headers: { cookie } });
      expect(response.status, cookie).toBe(401);
      expect(response.body).toMatchObject({ code: "unauthenticated" });
    }
  });

  it("signs out: 204, the cookie cleared, and the session refused afterwards", async () => {
    const { cookie, csrf } = await session();
    const response = await call(t, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { cookie, origin, "x-csrf-token": csrf } });
    expect(response.status).toBe(204);
    const cleared = parseSetCookie(response.headers.get("set-cookie"));
    expect(cleared).toMatchObject({ name: LOOPBACK_SESSION_COOKIE, value: "" });
    expect(cleared.attributes).toEqual(expect.arrayContaining(["max-age=0", "path=/", "httponly", "samesite=lax"]));
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(401);
    expect((await call(t, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { cookie, origin, "x-csrf-token": csrf } })).status).toBe(401);
  });

  it("signs out everywhere: every session of the user ends", async () => {
    const one = await session();
    const two = await session();
    const response = await call(t, "signOutAgentEverywhere", "/agent-api/sign-out-everywhere", { method: "POST", headers: { cookie: one.cookie, origin, "x-csrf-token": one.csrf } });
    expect(response.status).toBe(204);
    expect(parseSetCookie(response.headers.get("set-cookie")).value).toBe("");
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: one.cookie } })).status).toBe(401);
    // This gateway has no NATS: the other session's cached copy would live out its TTL (content's
    // event ends it at once, see the two replicas below); content itself no longer knows it.
    t.gateway.caches.agentSessions.clear();
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: two.cookie } })).status).toBe(401);
  });

  it("refuses a state-changing request without Origin, with a foreign one, or with the string null (403), before content is asked", async () => {
    const { cookie, csrf } = await session();
    const before = agentAccess.count("signIn");
    for (const headers of [{}, { origin: "https://evil.example" }, { origin: "null" }, { origin: origin.replace("127.0.0.1", "localhost") }]) {
      const signIn = await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers });
      expect(signIn.status, JSON.stringify(headers)).toBe(403);
      expect(signIn.body).toMatchObject({ code: "permission_denied", message: expect.stringMatching(/^Cross-site request refused: the Origin header/) });
      const signOut = await call(t, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { ...headers, cookie, "x-csrf-token": csrf } });
      expect(signOut.status).toBe(403);
    }
    expect(agentAccess.count("signIn")).toBe(before);
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(200);
  });

  it("refuses sign-out without X-CSRF-Token or with a wrong one (403), and the session lives on", async () => {
    const { cookie, csrf } = await session();
    for (const token of [undefined, "", "wrong", `${csrf}x`, csrf.slice(1)]) {
      const headers: Record<string, string> = { cookie, origin };
      if (token !== undefined) headers["x-csrf-token"] = token;
      for (const [operationId, path] of [["signOutAgent", "/agent-api/sign-out"], ["signOutAgentEverywhere", "/agent-api/sign-out-everywhere"]] as const) {
        const response = await call(t, operationId, path, { method: "POST", headers });
        expect(response.status, `${path} ${token}`).toBe(403);
        expect(response.body).toMatchObject({ code: "permission_denied", message: expect.stringContaining("X-CSRF-Token") });
      }
    }
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(200);
  });

  it("never takes an API key or any Authorization header: 401 with a clear message", async () => {
    const key = t.content.addKey(user.companyId);
    const { cookie, csrf } = await session();
    const me = await call(t, "getAgentMe", "/agent-api/me", { key });
    expect(me.status).toBe(401);
    expect((me.body as { message: string }).message).toMatch(/does not take an Authorization header/);
    expect((await call(t, "getAgentMe", "/agent-api/me", { key, headers: { cookie } })).status).toBe(401);
    expect((await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", key, json: { email: user.email, password: user.password }, headers: { origin } })).status).toBe(401);
    expect((await call(t, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { authorization: "Session abcdefgh12345678", cookie, origin, "x-csrf-token": csrf } })).status).toBe(401);
  });

  it("the public API never takes the cookie: GET /tickets with only the cookie is 403 saying to use an API key", async () => {
    const { cookie } = await session();
    for (const name of [LOOPBACK_SESSION_COOKIE, SECURE_SESSION_COOKIE]) {
      const response = await call(t, "listTickets", "/tickets", { headers: { cookie: `${name}=${cookie.split("=")[1]}` } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ code: "unauthenticated", message: AGENT_COOKIE_REFUSED });
    }
    expect((await call(t, "listGames", "/games", { headers: { cookie } })).status).toBe(403);
  });

  it("gives /agent-api no CORS: a foreign origin's preflight and request get no Access-Control header", async () => {
    const preflight = await t.request("/agent-api/sign-in", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const { cookie } = await session();
    const me = await t.request("/agent-api/me", { headers: { cookie, origin: "https://evil.example" } });
    expect(me.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("never writes the token, the CSRF token or the password to the log", async () => {
    const { cookie, token, csrf } = await session();
    await call(t, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { cookie, origin, "x-csrf-token": csrf } });
    await signIn({ email: user.email, password: "a wrong password" });
    const log = JSON.stringify(t.lines);
    expect(t.lines.length).toBeGreaterThan(0);
    expect(log).toContain("/agent-api/sign-out");
    for (const secret of [token, csrf, user.password, "a wrong password"]) expect(log).not.toContain(secret);
  });
});

describe("/agent-api behind https (SUPPORT_APP_URL)", () => {
  const agentAccess = new FakeAgentAccess();
  const user = agentAccess.addUser();
  const origin = "https://support.example.test";
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, config: { SUPPORT_APP_URL: `${origin}/app/`, AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
  });
  afterAll(() => t.stop());

  it("sets __Host-support_session with Secure, HttpOnly, Path=/, SameSite=Lax and no Domain, and reads only that name", async () => {
    const response = await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin } });
    expect(response.status).toBe(204);
    const cookie = parseSetCookie(response.headers.get("set-cookie"));
    expect(cookie.name).toBe(SECURE_SESSION_COOKIE);
    expect(cookie.attributes).toEqual(expect.arrayContaining(["secure", "httponly", "path=/", "samesite=lax"]));
    expect(cookie.attributes.some((a) => a.startsWith("domain="))).toBe(false);
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: `${SECURE_SESSION_COOKIE}=${cookie.value}` } })).status).toBe(200);
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: `${LOOPBACK_SESSION_COOKIE}=${cookie.value}` } })).status).toBe(401);
  });

  it("accepts only SUPPORT_APP_URL's origin, not the request's own", async () => {
    const own = await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin: t.url } });
    expect(own.status).toBe(403);
  });
});

describe("sign-in attempts per client address", () => {
  const agentAccess = new FakeAgentAccess();
  const user = agentAccess.addUser();
  const counts = new Map<string, number>();
  const players = createClient(
    PlayersService,
    createRouterTransport(({ service }) =>
      service(PlayersService, {
        consumeRateLimit: (request) => {
          for (const bucket of request.buckets) {
            const count = (counts.get(bucket.key) ?? 0) + 1;
            counts.set(bucket.key, count);
            if (count > bucket.limit) return { allowed: false, exceededKey: bucket.key, retryAfterSeconds: 42 };
          }
          return { allowed: true, retryAfterSeconds: 60 };
        },
      }),
    ),
  );
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, players, config: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 3 } });
  });
  afterAll(() => t.stop());

  it("counts attempts on the shared counters (agent-sign-in:address:<address>) and refuses past the limit with 429 before content is asked", async () => {
    const attempt = (email: string) => call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email, password: "guess" }, headers: { origin: t.url } });
    for (let i = 0; i < 3; i++) expect((await attempt(`someone-${i}@example.com`)).status).toBe(401);
    const refused = await attempt(user.email);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("42");
    expect(agentAccess.count("signIn")).toBe(3);
    expect([...counts.keys()]).toEqual(["agent-sign-in:address:127.0.0.1"]);
  });
});

describe("sessions across two gateway replicas", () => {
  const agentAccess = new FakeAgentAccess();
  const user = agentAccess.addUser();
  const busA = fakeNats();
  const busB = fakeNats();
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    // Content publishes content.agent_sessions.ended whenever sessions end; NATS gives it to every replica.
    agentAccess.onEnded = (userId, sessionIds) => {
      const envelope = { id: randomUUID(), type: AGENT_SESSIONS_ENDED, version: 1, occurredAt: new Date().toISOString(), companyId: user.companyId, data: { userId, sessionIds, reason: "signed_out" } };
      for (const bus of [busA, busB]) bus.publish(AGENT_SESSIONS_ENDED, envelope);
    };
    // A long cache lifetime: only the event can make replica B forget the session.
    const config = { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0, AGENT_SESSION_CACHE_TTL_MS: 600_000 };
    a = await startTestGateway({ agentAccess, nc: busA.nc, config });
    b = await startTestGateway({ agentAccess, nc: busB.nc, config: { ...config, SUPPORT_APP_URL: a.url } });
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it("subscribes every replica to content.agent_sessions.ended", () => {
    expect(busB.subjects).toContain(AGENT_SESSIONS_ENDED);
  });

  it("a session signed in on A works on B, and signing out on A makes B refuse it at once", async () => {
    const signIn = await call(a, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin: a.url } });
    const { name, value } = parseSetCookie(signIn.headers.get("set-cookie"));
    const cookie = `${name}=${value}`;
    expect((await call(b, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(200);
    const reads = agentAccess.count("getAgentSession");
    const me = await call(b, "getAgentMe", "/agent-api/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    // B answers from its cache now: without the event it would go on doing so.
    expect(agentAccess.count("getAgentSession")).toBe(reads);

    const csrf = (me.body as { csrfToken: string }).csrfToken;
    expect((await call(a, "signOutAgent", "/agent-api/sign-out", { method: "POST", headers: { cookie, origin: a.url, "x-csrf-token": csrf } })).status).toBe(204);
    expect((await call(b, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(401);
    expect((await call(a, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(401);
  });

  it("signing out everywhere on B ends the user's sessions cached on A", async () => {
    const cookies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const signIn = await call(a, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin: a.url } });
      const { name, value } = parseSetCookie(signIn.headers.get("set-cookie"));
      cookies.push(`${name}=${value}`);
    }
    for (const cookie of cookies) expect((await call(a, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(200);
    const me = await call(b, "getAgentMe", "/agent-api/me", { headers: { cookie: cookies[1]! } });
    const csrf = (me.body as { csrfToken: string }).csrfToken;
    const everywhere = await call(b, "signOutAgentEverywhere", "/agent-api/sign-out-everywhere", { method: "POST", headers: { cookie: cookies[1]!, origin: a.url, "x-csrf-token": csrf } });
    expect(everywhere.status).toBe(204);
    for (const cookie of cookies) expect((await call(a, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(401);
  });
});

describe("/agent-api two-factor", () => {
  const agentAccess = new FakeAgentAccess();
  let t: TestGateway;
  let origin: string;

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, config: { AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
    origin = t.url;
  });
  afterAll(() => t.stop());
  afterEach(() => {
    agentAccess.lockedForSeconds = undefined;
  });

  const signInAs = (user: { email: string; password: string }) =>
    call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin } });
  const totp = (code: string, cookie: string | undefined, headers: Record<string, string> = { origin }) =>
    call(t, "completeAgentTwoFactorSignIn", "/agent-api/sign-in/totp", { method: "POST", json: { code }, headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  const setCookies = (response: { headers: Headers }) => response.headers.getSetCookie().map((header) => parseSetCookie(header));
  /** A user with two-factor on, signed in up to the challenge: its cookie. */
  async function challenged() {
    const user = agentAccess.addUser({ twoFactor: { code: "246810", recoveryCodes: ["aaaa-bbbb-cccc", "dddd-eeee-ffff"] } });
    const response = await signInAs(user);
    expect(response.status, response.text).toBe(200);
    const [cookie] = setCookies(response);
    return { user, response, cookie: `${cookie!.name}=${cookie!.value}`, parsed: cookie! };
  }
  async function sessionOf(user: { email: string; password: string }) {
    const response = await signInAs(user);
    expect(response.status, response.text).toBe(204);
    const cookie = parseSetCookie(response.headers.get("set-cookie"));
    const header = `${cookie.name}=${cookie.value}`;
    const me = await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: header } });
    return { cookie: header, me: me.body as { csrfToken: string; session: { scope: string }; twoFactor: { enabled: boolean; required: boolean } } };
  }

  it("answers the password of a user with two-factor on with 200 {twoFactorRequired}, a short-lived challenge cookie and no session", async () => {
    const { response, parsed } = await challenged();
    expect(response.body).toEqual({ twoFactorRequired: true, expiresAt: expect.any(String) });
    expect(setCookies(response)).toHaveLength(1);
    expect(parsed.name).toBe(LOOPBACK_CHALLENGE_COOKIE);
    expect(parsed.attributes).toEqual(expect.arrayContaining(["httponly", "path=/", "samesite=strict"]));
    expect(parsed.attributes).not.toContain("secure");
    const maxAge = Number(parsed.attributes.find((a) => a.startsWith("max-age="))!.slice("max-age=".length));
    expect(maxAge).toBeGreaterThan(290);
    expect(maxAge).toBeLessThanOrEqual(300);
    // The challenge is no session.
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: `${LOOPBACK_SESSION_COOKIE}=${parsed.value}` } })).status).toBe(401);
  });

  it("completes the sign-in with the code: 204, a new session cookie, the challenge cookie cleared; the challenge works once", async () => {
    const { user, cookie } = await challenged();
    const done = await totp(user.twoFactor!.code, cookie);
    expect(done.status, done.text).toBe(204);
    const [session, cleared] = setCookies(done);
    expect(session).toMatchObject({ name: LOOPBACK_SESSION_COOKIE, value: agentAccess.sessions.at(-1)!.token });
    expect(cleared).toMatchObject({ name: LOOPBACK_CHALLENGE_COOKIE, value: "" });
    expect(cleared!.attributes).toContain("max-age=0");
    const me = await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: `${session!.name}=${session!.value}` } });
    expect(me.body).toMatchObject({ user: { id: user.id }, session: { scope: "full" }, twoFactor: { enabled: true, required: false } });
    const again = await totp(user.twoFactor!.code, cookie);
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ code: "unauthenticated", message: expect.stringContaining("sign in again") });
  });

  it("takes a recovery code once", async () => {
    const first = await challenged();
    expect((await totp("aaaa-bbbb-cccc", first.cookie)).status).toBe(204);
    const second = await signInAs(first.user);
    const [cookie] = setCookies(second);
    const reused = await totp("aaaa-bbbb-cccc", `${cookie!.name}=${cookie!.value}`);
    expect(reused.status).toBe(401);
    expect(reused.body).toEqual({ code: "unauthenticated", message: "The code is wrong" });
  });

  it("refuses a wrong code (401), no challenge cookie (401), a locked account (429 with Retry-After), and no Origin (403) before content is asked", async () => {
    const { cookie } = await challenged();
    expect((await totp("000000", cookie)).body).toEqual({ code: "unauthenticated", message: "The code is wrong" });
    const none = await totp("000000", undefined);
    expect(none.status).toBe(401);
    expect((none.body as { message: string }).message).toMatch(/sign in again/);
    agentAccess.lockedForSeconds = 120;
    const locked = await totp("000000", cookie);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("120");
    agentAccess.lockedForSeconds = undefined;
    const before = agentAccess.count("completeTwoFactorSignIn");
    for (const headers of [{}, { origin: "https://evil.example" }] as Record<string, string>[]) expect((await totp("000000", cookie, headers)).status).toBe(403);
    expect(agentAccess.count("completeTwoFactorSignIn")).toBe(before);
    expect((await totp("", cookie)).status).toBe(400);
  });

  it("enrols: a QR code drawn by the gateway (an SVG data URL), then a code confirms it: ten recovery codes and a new session", async () => {
    const user = agentAccess.addUser();
    const { cookie, me } = await sessionOf(user);
    expect(me.twoFactor).toEqual({ enabled: false, required: false });
    const start = await call(t, "startAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment", { method: "POST", headers: { cookie, origin, "x-csrf-token": me.csrfToken } });
    expect(start.status, start.text).toBe(200);
    const enrolment = start.body as { otpauthUri: string; secret: string; qrCode: string };
    expect(enrolment.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(enrolment.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(enrolment.qrCode.slice("data:image/svg+xml;base64,".length), "base64").toString("utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // Drawn here: no link to any other host.
    expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    expect(start.headers.get("cache-control")).toBe("no-store");

    const wrong = await call(t, "confirmAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment/confirm", { method: "POST", json: { code: "000000" }, headers: { cookie, origin, "x-csrf-token": me.csrfToken } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/code" }] } });
    const confirmed = await call(t, "confirmAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment/confirm", { method: "POST", json: { code: FAKE_ENROLMENT_CODE }, headers: { cookie, origin, "x-csrf-token": me.csrfToken } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((confirmed.body as { recoveryCodes: string[] }).recoveryCodes).toHaveLength(10);
    expect(confirmed.headers.get("cache-control")).toBe("no-store");
    const fresh = parseSetCookie(confirmed.headers.get("set-cookie"));
    expect(`${fresh.name}=${fresh.value}`).not.toBe(cookie);
    // The old session is gone at once on this replica; the new one has two-factor on.
    expect((await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie } })).status).toBe(401);
    const after = await call(t, "getAgentMe", "/agent-api/me", { headers: { cookie: `${fresh.name}=${fresh.value}` } });
    expect(after.body).toMatchObject({ twoFactor: { enabled: true } });
    // On already: a second enrolment is refused.
    const csrf = (after.body as { csrfToken: string }).csrfToken;
    const twice = await call(t, "startAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment", { method: "POST", headers: { cookie: `${fresh.name}=${fresh.value}`, origin, "x-csrf-token": csrf } });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ code: "failed_precondition" });
  });

  it("refuses enrolment without X-CSRF-Token, without Origin (403) or without a session (401)", async () => {
    const { cookie, me } = await sessionOf(agentAccess.addUser());
    const before = agentAccess.count("startTwoFactorEnrolment") + agentAccess.count("confirmTwoFactorEnrolment");
    for (const [operationId, path] of [["startAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment"], ["confirmAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment/confirm"]] as const) {
      const json = { code: FAKE_ENROLMENT_CODE };
      expect((await call(t, operationId, path, { method: "POST", json, headers: { cookie, origin } })).status, path).toBe(403);
      expect((await call(t, operationId, path, { method: "POST", json, headers: { cookie, "x-csrf-token": me.csrfToken } })).status, path).toBe(403);
      expect((await call(t, operationId, path, { method: "POST", json, headers: { origin, "x-csrf-token": me.csrfToken } })).status, path).toBe(401);
    }
    expect(agentAccess.count("startTwoFactorEnrolment") + agentAccess.count("confirmTwoFactorEnrolment")).toBe(before);
  });

  it("gives a user whose company requires two-factor a session limited to enrolment, which the full-session check refuses", async () => {
    const user = agentAccess.addUser({ requireTwoFactor: true });
    const { cookie, me } = await sessionOf(user);
    expect(me.session.scope).toBe("two_factor_enrolment");
    expect(me.twoFactor).toEqual({ enabled: false, required: true });
    // It may enrol.
    expect((await call(t, "startAgentTwoFactorEnrolment", "/agent-api/two-factor/enrolment", { method: "POST", headers: { cookie, origin, "x-csrf-token": me.csrfToken } })).status).toBe(200);
    // Every other route of the support application (none yet but these) sits behind requireFullSession.
    const next = vi.fn();
    const state = (scope: string) => ({ state: { agentSession: { scope } } }) as unknown as Parameters<typeof requireFullSession>[0];
    expect(() => requireFullSession(state("two_factor_enrolment"), next)).toThrow(/requires two-factor/);
    expect(next).not.toHaveBeenCalled();
    void requireFullSession(state("full"), next);
    expect(next).toHaveBeenCalledOnce();
  });
});

describe("/agent-api two-factor behind https (SUPPORT_APP_URL)", () => {
  const agentAccess = new FakeAgentAccess();
  const user = agentAccess.addUser({ twoFactor: { code: "135790", recoveryCodes: [] } });
  const origin = "https://support.example.test";
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({ agentAccess, config: { SUPPORT_APP_URL: origin, AGENT_SIGN_IN_RATE_LIMIT_PER_ADDRESS: 0 } });
  });
  afterAll(() => t.stop());

  it("sets __Host-support_2fa with Secure, and reads only that name", async () => {
    const response = await call(t, "signInAgent", "/agent-api/sign-in", { method: "POST", json: { email: user.email, password: user.password }, headers: { origin } });
    const cookie = parseSetCookie(response.headers.get("set-cookie"));
    expect(cookie.name).toBe(SECURE_CHALLENGE_COOKIE);
    expect(cookie.attributes).toEqual(expect.arrayContaining(["secure", "httponly", "path=/", "samesite=strict"]));
    const loopbackName = await call(t, "completeAgentTwoFactorSignIn", "/agent-api/sign-in/totp", { method: "POST", json: { code: "135790" }, headers: { origin, cookie: `${LOOPBACK_CHALLENGE_COOKIE}=${cookie.value}` } });
    expect(loopbackName.status).toBe(401);
    const done = await call(t, "completeAgentTwoFactorSignIn", "/agent-api/sign-in/totp", { method: "POST", json: { code: "135790" }, headers: { origin, cookie: `${SECURE_CHALLENGE_COOKIE}=${cookie.value}` } });
    expect(done.status, done.text).toBe(204);
    expect(parseSetCookie(done.headers.getSetCookie()[0]!).name).toBe(SECURE_SESSION_COOKIE);
  });
});
