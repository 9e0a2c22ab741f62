// Support sessions and rate-limit counters through the players Connect API, against real
// Postgres and NATS; content is an in-memory ContentService (the gateway's tests use the real one).
import { randomUUID } from "node:crypto";
import { createClient, createRouterTransport, Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@support/db";
import { domainTransport } from "@support/rpc";
import { ContentService } from "@support/proto";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { startSmtpReceiver, type SmtpReceiver } from "@support/testkit";
import { failureOf, startPlayers, type PlayersTestContext } from "./context.ts";
import { schemaProblems } from "./event-schemas.ts";

const companyId = randomUUID();

interface FakeEnvironment {
  token: string;
  environmentId: string;
  gameId: string;
  blockUnverifiedPlayers: boolean;
  jwks?: { keys: JWK[] };
}

const environments = new Map<string, FakeEnvironment>();

const content = createClient(
  ContentService,
  // Through the same client-side mapping as the real clients: calls answer AppErrors.
  domainTransport(createRouterTransport(({ service }) =>
    service(ContentService, {
      getEnvironmentByToken: async ({ token }) => {
        const env = environments.get(token);
        if (!env) throw new ConnectError("environment not found", Code.NotFound);
        return {
          companyId,
          environment: { id: env.environmentId, gameId: env.gameId, name: "production", token },
          game: { id: env.gameId, companyId, name: "Game", slug: "game", languages: ["en"], blockUnverifiedPlayers: env.blockUnverifiedPlayers, metadataJwks: env.jwks as never },
          resources: [{ key: "billing", title: "Billing" }],
        };
      },
      getGame: async ({ gameId }) => ({ game: { id: gameId, companyId, name: "Star Game", slug: "star-game", languages: ["en"] }, environments: [], resources: [] }),
      listFields: async () => ({
        fields: [
          { name: "Level", key: "level", type: "number", isAiField: false, options: [] },
          { name: "VIP", key: "vip", type: "boolean", isAiField: false, options: [] },
        ],
      }),
    }),
  ), 5000),
);

function environment(settings: Partial<FakeEnvironment> = {}): FakeEnvironment {
  const env = { token: randomUUID(), environmentId: randomUUID(), gameId: randomUUID(), blockUnverifiedPlayers: false, ...settings };
  environments.set(env.token, env);
  return env;
}

let ctx: PlayersTestContext;
let smtp: SmtpReceiver;
let privateKey: CryptoKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  ctx = await startPlayers({ content, config: { SMTP_URL: smtp.url, MAIL_FROM: "Support <support@studio.example>" } });
  const pair = await generateKeyPair("RS256", { modulusLength: 2048 });
  privateKey = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1" }] };
});

afterAll(async () => {
  await ctx?.stop();
  await smtp?.stop();
});

const signed = (metadata: unknown, exp = "10m") => new SignJWT({ metadata }).setProtectedHeader({ alg: "RS256", kid: "k1" }).setExpirationTime(exp).sign(privateKey);

describe("CreateSupportSession", () => {
  it("stores the session with the hash of its code, and answers the code once", async () => {
    const env = environment();
    const response = await ctx.client.createSupportSession({
      token: env.token,
      language: "de",
      resource: "billing",
      metadata: { player: { id: "p-1", name: "Ann" }, tags: ["t"], fields: { level: "3" } },
    });
    expect(response.sessionCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(response.session).toMatchObject({
      companyId,
      gameId: env.gameId,
      environmentId: env.environmentId,
      language: "de",
      resource: "billing",
      verification: "unverified",
      metadata: { player: { id: "p-1", name: "Ann" }, tags: ["t"], fields: { level: "3" } },
    });
    const expiresIn = Number(response.session!.expiresAt!.seconds) - Number(response.session!.createdAt!.seconds);
    expect(expiresIn).toBe(86_400);

    const rows = await sql<{ code_hash: string; player_external_id: string }>`select * from players.support_sessions where id = ${response.session!.id}`.execute(ctx.db);
    expect(rows.rows[0]?.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows.rows[0])).not.toContain(response.sessionCode);
    expect(rows.rows[0]?.player_external_id).toBe("p-1");
  });

  it("types query fields by the game's field definitions only when asked to", async () => {
    const env = environment();
    const fromQuery = await ctx.client.createSupportSession({ token: env.token, metadata: { fields: { level: "3", vip: "true", other: "4" } }, fieldsFromQuery: true });
    expect(fromQuery.session?.metadata?.fields).toEqual({ level: 3, vip: true, other: "4" });
    const fromBody = await ctx.client.createSupportSession({ token: env.token, metadata: { fields: { level: "3" } } });
    expect(fromBody.session?.metadata?.fields).toEqual({ level: "3" });
  });

  it("merges verified metadata over unsigned metadata and marks the session verified", async () => {
    const env = environment({ jwks });
    const response = await ctx.client.createSupportSession({
      token: env.token,
      signedMetadataToken: await signed({ player: { id: "real" }, tags: ["signed"], fields: { level: 9 } }),
      metadata: { player: { id: "spoofed", name: "Mallory" }, tags: ["unsigned"], fields: { level: "1", note: "kept" } },
    });
    expect(response.session).toMatchObject({ verification: "verified", metadata: { player: { id: "real" }, tags: ["signed"], fields: { level: 9, note: "kept" } } });
    expect(response.session?.metadata?.player?.name).toBeUndefined();
  });

  it("answers NOT_FOUND for an unknown token and INVALID_ARGUMENT for a bad language, resource, signed token or unverified player, storing nothing", async () => {
    const before = await sessionCount();
    expect(await failureOf(ctx.client.createSupportSession({ token: randomUUID() }))).toMatchObject({ code: "not_found", message: "No game environment has this token" });
    const env = environment({ jwks, blockUnverifiedPlayers: true });
    expect((await failureOf(ctx.client.createSupportSession({ token: env.token, language: "xx" }))).issues).toEqual([{ path: "/language", message: "must be a language code" }]);
    expect((await failureOf(ctx.client.createSupportSession({ token: env.token, resource: "faq" }))).issues).toEqual([{ path: "/resource", message: "is not a resource of the game" }]);
    expect((await failureOf(ctx.client.createSupportSession({ token: env.token, signedMetadataToken: await signed({}, "-1h") }))).issues).toEqual([
      { path: "/signedMetadataToken", message: "has expired (exp)" },
    ]);
    expect((await failureOf(ctx.client.createSupportSession({ token: env.token, metadata: { player: { id: "p" } } }))).code).toBe("invalid_argument");
    expect((await failureOf(ctx.client.createSupportSession({ token: env.token, metadata: { player: { email: "bad" } } }))).issues).toEqual([
      { path: "/player/email", message: "must be an email address" },
    ]);
    expect(await sessionCount()).toBe(before);
  });

  it("lets anonymous and verified players into a game that blocks unverified ones", async () => {
    const env = environment({ jwks, blockUnverifiedPlayers: true });
    expect((await ctx.client.createSupportSession({ token: env.token, metadata: { player: { name: "Anon" } } })).session?.verification).toBe("anonymous");
    const verified = await ctx.client.createSupportSession({ token: env.token, signedMetadataToken: await signed({ player: { id: "p" } }) });
    expect(verified.session?.verification).toBe("verified");
  });

  it("publishes players.session.created without the code or personal data beyond ids", async () => {
    const env = environment();
    const response = await ctx.client.createSupportSession({ token: env.token, metadata: { player: { id: "evt", name: "Eve", email: "eve@example.com" } } });
    const events = (await ctx.publishedEvents()).filter((e) => e.type === "players.session.created" && (e.data as { gameId: string }).gameId === env.gameId);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(schemaProblems(event!)).toEqual([]);
    expect(event).toMatchObject({ companyId });
    expect(event!.data).toEqual({
      sessionId: response.session!.id,
      gameId: env.gameId,
      environmentId: env.environmentId,
      externalPlayerId: "evt",
      verification: "unverified",
      language: null,
      resource: null,
      expiresAt: expect.any(String),
    });
    const text = JSON.stringify(event);
    for (const secret of [response.sessionCode, "Eve", "eve@example.com"]) expect(text).not.toContain(secret);
  });
});

describe("email verification", () => {
  const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

  async function emailSession(email: string) {
    const env = environment();
    const created = await ctx.client.createSupportSession({ token: env.token, metadata: { player: { email } } });
    return { env, code: created.sessionCode, id: created.session!.id };
  }

  it("mails a code to the session's email, stores only its hash, and marks the session when it comes back", async () => {
    const { env, code, id } = await emailSession("Mia@Example.com");
    const before = smtp.mails.length;
    const sent = await ctx.client.startEmailVerification({ sessionCode: code });
    expect(sent).toMatchObject({ maskedEmail: "M*a@Example.com", sendsLeft: 4 });
    const mail = await smtp.waitForMail("mia@example.com", { after: before });
    expect(mail.from).toBe("support@studio.example");
    expect(mail.subject).toContain("Star Game");
    const emailed = codeIn(mail.text);

    const { rows } = await sql<{ code_hash: string; attempts: number }>`select code_hash, attempts from players.email_verifications where session_id = ${id}`.execute(ctx.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.code_hash).not.toContain(emailed);
    // Text that cannot be a code is refused without counting as a try; a wrong code counts.
    expect(await failureOf(ctx.client.confirmEmailVerification({ sessionCode: code, code: "12ab" }))).toMatchObject({
      code: "invalid_argument", issues: [{ path: "/code", message: "must be the 6-digit code from the email" }],
    });
    const attempts = async () => (await sql<{ attempts: number }>`select attempts from players.email_verifications where session_id = ${id}`.execute(ctx.db)).rows[0]!.attempts;
    expect(await attempts()).toBe(0);
    await failureOf(ctx.client.confirmEmailVerification({ sessionCode: code, code: emailed === "999999" ? "999998" : "999999" }));
    expect(await attempts()).toBe(1);

    const verified = await ctx.client.confirmEmailVerification({ sessionCode: code, code: ` ${emailed.slice(0, 3)}-${emailed.slice(3)} ` });
    expect(verified.session?.emailVerifiedAt).toBeDefined();
    expect((await ctx.client.getSupportSession({ sessionCode: code })).session?.emailVerifiedAt).toBeDefined();
    // Used up: the code row is gone.
    expect((await sql<{ n: number }>`select count(*)::int as n from players.email_verifications where session_id = ${id}`.execute(ctx.db)).rows[0]!.n).toBe(0);

    const events = (await ctx.publishedEvents()).filter((e) => e.type === "players.session.verified" && (e.data as { sessionId: string }).sessionId === id);
    expect(events).toHaveLength(1);
    expect(schemaProblems(events[0]!)).toEqual([]);
    expect(events[0]!.data).toMatchObject({ sessionId: id, gameId: env.gameId });
    const text = JSON.stringify(events[0]);
    for (const secret of [code, emailed, "mia@example.com", "Mia@Example.com"]) expect(text).not.toContain(secret);
  });

  it("refuses an expired code and one sent to an address the session no longer names", async () => {
    const { code, id } = await emailSession("late@example.com");
    const before = smtp.mails.length;
    await ctx.client.startEmailVerification({ sessionCode: code });
    const emailed = codeIn((await smtp.waitForMail("late@example.com", { after: before })).text);
    await sql`update players.email_verifications set expires_at = now() - interval '1 second' where session_id = ${id}`.execute(ctx.db);
    const expired = await failureOf(ctx.client.confirmEmailVerification({ sessionCode: code, code: emailed }));
    expect(expired).toMatchObject({ code: "invalid_argument", issues: [{ path: "/code", message: expect.stringContaining("expired") }] });
    expect((await ctx.client.getSupportSession({ sessionCode: code })).session?.emailVerifiedAt).toBeUndefined();
  });

  it("counts nothing when the mail cannot be sent, and says so when no SMTP server is configured", async () => {
    const down = await startSmtpReceiver();
    await down.stop();
    const unreachable = await startPlayers({ content, config: { SMTP_URL: down.url } });
    try {
      const client = unreachable.client;
      const env = environment();
      const created = await client.createSupportSession({ token: env.token, metadata: { player: { email: "down@example.com" } } });
      const failure = await failureOf(client.startEmailVerification({ sessionCode: created.sessionCode }));
      expect(["unavailable", "internal"]).toContain(failure.code);
      const left = await sql<{ n: number }>`select count(*)::int as n from players.email_verifications where session_id = ${created.session!.id}`.execute(unreachable.db);
      expect(left.rows[0]!.n).toBe(0);
    } finally {
      await unreachable.stop();
    }
    const unconfigured = await startPlayers({ content, config: { SMTP_URL: "" } });
    try {
      const env = environment();
      const created = await unconfigured.client.createSupportSession({ token: env.token, metadata: { player: { email: "x@example.com" } } });
      expect(await failureOf(unconfigured.client.startEmailVerification({ sessionCode: created.sessionCode }))).toMatchObject({ code: "failed_precondition" });
    } finally {
      await unconfigured.stop();
    }
  });
});

describe("GetSupportSession", () => {
  it("returns a live session by its code, and NOT_FOUND for unknown or expired codes", async () => {
    const env = environment();
    const created = await ctx.client.createSupportSession({ token: env.token, metadata: { tags: ["a"] } });
    const found = await ctx.client.getSupportSession({ sessionCode: created.sessionCode });
    expect(found.session).toEqual(created.session);
    expect((await failureOf(ctx.client.getSupportSession({ sessionCode: "nope" }))).code).toBe("not_found");
    expect((await failureOf(ctx.client.getSupportSession({ sessionCode: "" }))).code).toBe("not_found");

    await sql`update players.support_sessions set expires_at = now() - interval '1 second' where id = ${created.session!.id}`.execute(ctx.db);
    expect((await failureOf(ctx.client.getSupportSession({ sessionCode: created.sessionCode }))).code).toBe("not_found");
    expect((await ctx.server.expirySweep.runOnce()).sessions).toBeGreaterThanOrEqual(1);
    const left = await sql<{ n: number }>`select count(*)::int as n from players.support_sessions where id = ${created.session!.id}`.execute(ctx.db);
    expect(left.rows[0]?.n).toBe(0);
  });
});

describe("ConsumeRateLimit", () => {
  it("allows up to the limit in a window, then refuses with the seconds left in the window", async () => {
    const key = `address:${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await ctx.client.consumeRateLimit({ windowSeconds: 3600, buckets: [{ key, limit: 3 }] })).allowed).toBe(true);
    const refused = await ctx.client.consumeRateLimit({ windowSeconds: 3600, buckets: [{ key, limit: 3 }] });
    expect(refused).toMatchObject({ allowed: false, exceededKey: key });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3600);
  });

  it("counts exactly under concurrency: 40 simultaneous requests against a limit of 25 let 25 through", async () => {
    const key = `token:${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 40 }, () => ctx.client.consumeRateLimit({ windowSeconds: 3600, buckets: [{ key, limit: 25 }] })));
    expect(answers.filter((a) => a.allowed)).toHaveLength(25);
  });

  it("does not charge later buckets once an earlier one is over its limit", async () => {
    const address = `address:${randomUUID()}`;
    const token = `token:${randomUUID()}`;
    const consume = () => ctx.client.consumeRateLimit({ windowSeconds: 3600, buckets: [{ key: address, limit: 1 }, { key: token, limit: 100 }] });
    await consume();
    for (let i = 0; i < 5; i++) expect((await consume()).exceededKey).toBe(address);
    const counts = await sql<{ bucket_key: string; count: number }>`select bucket_key, count from players.rate_limits where bucket_key in (${address}, ${token})`.execute(ctx.db);
    expect(Object.fromEntries(counts.rows.map((r) => [r.bucket_key, r.count]))).toEqual({ [address]: 6, [token]: 1 });
  });

  it("starts a new window when the old one ends, and the sweep deletes ended windows", async () => {
    const key = `address:${randomUUID()}`;
    expect((await ctx.client.consumeRateLimit({ windowSeconds: 1, buckets: [{ key, limit: 1 }] })).allowed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await ctx.client.consumeRateLimit({ windowSeconds: 1, buckets: [{ key, limit: 1 }] })).allowed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await ctx.server.expirySweep.runOnce()).rateLimitWindows).toBeGreaterThanOrEqual(2);
    const left = await sql<{ n: number }>`select count(*)::int as n from players.rate_limits where bucket_key = ${key}`.execute(ctx.db);
    expect(left.rows[0]?.n).toBe(0);
  });

  it("refuses malformed requests", async () => {
    expect((await failureOf(ctx.client.consumeRateLimit({ windowSeconds: 0, buckets: [] }))).issues).toEqual([
      { path: "/windowSeconds", message: "must be an integer from 1 to 86400" },
      { path: "/buckets", message: "must have 1 to 8 buckets" },
    ]);
    expect((await failureOf(ctx.client.consumeRateLimit({ windowSeconds: 60, buckets: [{ key: "a", limit: 0 }, { key: "a", limit: 1 }] }))).issues).toEqual([
      { path: "/buckets/0/limit", message: "must be a positive integer" },
      { path: "/buckets/1/key", message: "is given twice" },
    ]);
  });
});

describe("AddRateLimitUsage", () => {
  const window = 60;
  const currentWindow = () => BigInt(Math.floor(Date.now() / 1000 / window) * window);

  it("adds batched deltas in one call and answers every bucket's total over all callers, in the request's order", async () => {
    const key = `api_key:${randomUUID()}`;
    const company = `company:${randomUUID()}`;
    const windowStart = currentWindow();
    const first = await ctx.client.addRateLimitUsage({ windowSeconds: window, usages: [{ key, windowStart, delta: 5 }, { key: company, windowStart, delta: 7 }] });
    expect(first.totals.map((t) => [t.key, t.total])).toEqual([[key, 5n], [company, 7n]]);
    // Another replica's sync, concurrent with a third: both deltas land, whichever goes first.
    const [a, b] = await Promise.all([
      ctx.client.addRateLimitUsage({ windowSeconds: window, usages: [{ key: company, windowStart, delta: 3 }] }),
      ctx.client.addRateLimitUsage({ windowSeconds: window, usages: [{ key: company, windowStart, delta: 4 }, { key, windowStart, delta: 0 }] }),
    ]);
    const seen = [a.totals[0]!.total, b.totals[0]!.total];
    // The later of the two sees both deltas; the earlier sees its own (+3 -> 10, or +4 -> 11).
    expect(seen).toContain(14n);
    expect(seen.some((total) => total === 10n || total === 11n)).toBe(true);
    expect(b.totals[1]).toMatchObject({ key, total: 5n });
    const { totals } = await ctx.client.addRateLimitUsage({ windowSeconds: window, usages: [{ key: company, windowStart, delta: 0 }] });
    expect(totals[0]!.total).toBe(14n);
  });

  it("counts windows apart and sums a bucket given twice", async () => {
    const key = `company:${randomUUID()}`;
    const current = currentWindow();
    const previous = current - BigInt(window);
    const { totals } = await ctx.client.addRateLimitUsage({
      windowSeconds: window,
      usages: [{ key, windowStart: previous, delta: 2 }, { key, windowStart: current, delta: 1 }, { key, windowStart: current, delta: 1 }],
    });
    expect(totals.map((t) => t.total)).toEqual([2n, 2n, 2n]);
  });

  it("refuses malformed batches", async () => {
    expect((await failureOf(ctx.client.addRateLimitUsage({ windowSeconds: 0, usages: [] }))).issues).toEqual([
      { path: "/windowSeconds", message: "must be an integer from 1 to 86400" },
      { path: "/usages", message: "must have 1 to 10000 usages" },
    ]);
    const far = currentWindow() + 3600n;
    expect((await failureOf(ctx.client.addRateLimitUsage({ windowSeconds: window, usages: [{ key: "", windowStart: far, delta: -1 }, { key: "k", windowStart: currentWindow() + 1n, delta: 1 }] }))).issues).toEqual([
      { path: "/usages/0/key", message: "must be 1 to 256 characters" },
      { path: "/usages/0/delta", message: "must be an integer from 0 to 1000000" },
      { path: "/usages/0/windowStart", message: "must be the start of the previous, current or next window" },
      { path: "/usages/1/windowStart", message: "must be the start of the previous, current or next window" },
    ]);
  });
});

async function sessionCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from players.support_sessions`.execute(ctx.db);
  return rows[0]!.n;
}
