// /agent-api through real HTTP against gateways whose content is an in-memory AgentAccessService
// (content's own tests cover passwords, lockouts and sessions): the cookie and its flags, the
// generic failures, CSRF, the separation from API keys, and sessions ended across replicas.
import { randomUUID } from "node:crypto";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { PlayersService } from "@support/proto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOOPBACK_SESSION_COOKIE, SECURE_SESSION_COOKIE } from "../agent-api/cookie.ts";
import { AGENT_COOKIE_REFUSED } from "../auth.ts";
import { AGENT_SESSIONS_ENDED } from "../events/agent-sessions-ended.consumer.ts";
import { validateResponse } from "../openapi/validation.ts";
import { FakeAgentAccess, fakeNats, startTestGateway, type TestGateway } from "../test-helpers.ts";

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
  const user = agentAccess.addUser({ role: "admin" });
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
      user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, role: "admin" },
      companyId: user.companyId,
      gameIds: user.gameIds,
      csrfToken: stored.csrfToken,
      session: { createdAt: stored.createdAt.toISOString(), idleExpiresAt: expect.any(String), expiresAt: stored.expiresAt.toISOString() },
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
