// The public web support sessions (GET /support/sessions/redirect, POST /support/sessions)
// and the abuse limits of the public endpoints, through the REST API of the real stack. Every
// answer is also checked against the OpenAPI document by the stack. Stored sessions are read
// from the players schema.
import { createHash, createHmac, createSign, generateKeyPairSync, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, sql, type Kysely } from "@support/db";
import type { JWK } from "jose";
import { signingKey, signMetadata, type SigningKey } from "./signed-metadata.ts";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const WEB_SUPPORT_URL = "https://help.example.com/support?brand=galaxy&lang=auto";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const inFiveMinutes = () => Math.floor(Date.now() / 1000) + 300;

/** A 1024-bit RSA key pair (jose refuses to make one) and a token it signed. */
function weakKeyAndToken(metadata: unknown): { jwk: JWK; token: string } {
  const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
  const head = b64({ alg: "RS256", kid: "weak-1024" });
  const body = b64({ metadata, exp: inFiveMinutes() });
  const signature = createSign("RSA-SHA256").update(`${head}.${body}`).sign(weak.privateKey).toString("base64url");
  return { jwk: { ...(weak.publicKey.export({ format: "jwk" }) as JWK), kid: "weak-1024", use: "sig" }, token: `${head}.${body}.${signature}` };
}

interface StoredSession {
  company_id: string;
  game_id: string;
  environment_id: string;
  language: string | null;
  resource: string | null;
  metadata: { player?: Record<string, unknown>; tags?: string[]; fields?: Record<string, unknown> };
  verification: string;
  ttl_seconds: number;
}

describe("public web support sessions through the real stack", () => {
  let stack: Stack;
  let tenant: TenantResult;
  let db: Kysely<unknown>;
  let current: SigningKey;
  let previous: SigningKey;
  let stranger: SigningKey;
  let weak: { jwk: JWK; token: string };
  let openToken: string;
  let strictToken: string;
  let limitedToken: string;
  let quietToken: string;

  beforeAll(async () => {
    [current, previous, stranger] = await Promise.all([signingKey("2026-11"), signingKey("2026-10"), signingKey("2026-11")]);
    weak = weakKeyAndToken({ player: { id: "weak" } });
    // The first gateway's limits are out of the way; the abuse-limit tests start replicas with small ones.
    stack = await startStack({ gateway: { WEB_SUPPORT_URL, PUBLIC_RATE_LIMIT_PER_ADDRESS: 1_000_000, PUBLIC_RATE_LIMIT_PER_TOKEN: 1_000_000 } });
    tenant = await stack.applyTenant({
      company: { name: "Session Studio", primaryLanguage: "en" },
      games: [
        {
          ref: "open",
          name: "Open Game",
          slug: "open-game",
          languages: ["en", "de"],
          environments: [{ ref: "open-prod", name: "production" }],
          resources: [
            { key: "billing", title: "Billing" },
            { key: "account-recovery", title: "Account recovery" },
          ],
          metadataJwks: { keys: [current.publicJwk, previous.publicJwk, weak.jwk] },
        },
        {
          ref: "strict",
          name: "Strict Game",
          slug: "strict-game",
          languages: ["en"],
          environments: [{ ref: "strict-prod", name: "production" }],
          metadataJwks: { keys: [current.publicJwk] },
          blockUnverifiedPlayers: true,
        },
        {
          ref: "limited",
          name: "Limited Game",
          slug: "limited-game",
          languages: ["en"],
          environments: [
            { ref: "limited-prod", name: "production" },
            { ref: "quiet-prod", name: "staging" },
            { ref: "flood-prod", name: "flood" },
          ],
        },
      ],
      fields: [
        { key: "level", name: "Level", type: "number", game: null },
        { key: "vip", name: "VIP", type: "boolean", game: null },
        { key: "note", name: "Note", type: "text", game: null },
        { key: "server", name: "Server", type: "dropdown", game: "open", options: ["eu", "us"] },
      ],
    });
    openToken = tenant.games.open!.environments["open-prod"]!.token;
    strictToken = tenant.games.strict!.environments["strict-prod"]!.token;
    limitedToken = tenant.games.limited!.environments["limited-prod"]!.token;
    quietToken = tenant.games.limited!.environments["quiet-prod"]!.token;
    db = createDb({ url: stack.infra.databaseUrl, schema: "players", maxConnections: 2 });
  });

  afterAll(async () => {
    await db?.destroy();
    await stack?.stop();
  });

  async function stored(sessionCode: string): Promise<StoredSession> {
    const codeHash = createHash("sha256").update(sessionCode).digest("hex");
    const { rows } = await sql<StoredSession>`
      select company_id, game_id, environment_id, language, resource, metadata, verification,
             round(extract(epoch from expires_at - created_at))::int as ttl_seconds
      from players.support_sessions where code_hash = ${codeHash}`.execute(db);
    expect(rows, "the session is stored").toHaveLength(1);
    return rows[0]!;
  }

  async function sessionCount(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from players.support_sessions`.execute(db);
    return rows[0]!.n;
  }

  const create = (json: Record<string, unknown>) => stack.request("/support/sessions", { method: "POST", json });
  const redirect = (query: string) => stack.request(`/support/sessions/redirect?${query}`);

  async function created(response: StackResponse): Promise<StoredSession> {
    expect(response.status, response.text).toBe(200);
    const { sessionCode } = response.body as { sessionCode: string; url: string };
    return stored(sessionCode);
  }

  function expectRefusal(response: StackResponse, status: number, issue?: { path: string; message?: unknown }) {
    expect(response.status, response.text).toBe(status);
    if (issue) {
      expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
      expect((response.body as { details: { issues: unknown[] } }).details.issues).toContainEqual({ path: issue.path, message: issue.message ?? expect.any(String) });
    }
  }

  describe("POST /support/sessions", () => {
    it("creates a 24-hour session and answers its code and the web support url, keeping that url's query", async () => {
      const response = await create({ token: openToken, language: "de", resource: "billing", player: { name: "Ann", email: "ann@example.com" } });
      expect(response.status, response.text).toBe(200);
      const { sessionCode, url } = response.body as { sessionCode: string; url: string };
      expect(sessionCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url).toBe(`https://help.example.com/support?brand=galaxy&lang=auto&sid=${sessionCode}`);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await stored(sessionCode)).toEqual({
        company_id: tenant.companyId,
        game_id: tenant.games.open!.id,
        environment_id: tenant.games.open!.environments["open-prod"]!.id,
        language: "de",
        resource: "billing",
        metadata: { player: { name: "Ann", email: "ann@example.com" } },
        verification: "anonymous",
        ttl_seconds: 86_400,
      });
    });

    it("gives every session its own code", async () => {
      const codes = await Promise.all(Array.from({ length: 10 }, async () => ((await create({ token: openToken })).body as { sessionCode: string }).sessionCode));
      expect(new Set(codes).size).toBe(10);
    });

    it("marks a player with an id but no signature unverified", async () => {
      expect((await created(await create({ token: openToken, player: { id: "p-1" } }))).verification).toBe("unverified");
    });

    it("answers 404 for an unknown token, and 400 for one that is not a uuid", async () => {
      const unknown = await create({ token: randomUUID() });
      expectRefusal(unknown, 404);
      expect(unknown.body).toEqual({ code: "not_found", message: "No game environment has this token" });
      expectRefusal(await create({ token: "not-a-token" }), 400, { path: "/token" });
    });

    it("refuses a language that is not a language code and a resource the game does not have, creating nothing", async () => {
      const before = await sessionCount();
      expectRefusal(await create({ token: openToken, language: "english" }), 400, { path: "/language" });
      expectRefusal(await create({ token: openToken, resource: "faq" }), 400, { path: "/resource", message: "is not a resource of the game" });
      expectRefusal(await create({ token: strictToken, resource: "billing" }), 400, { path: "/resource" });
      expect(await sessionCount()).toBe(before);
    });

    it("refuses a malformed player", async () => {
      expectRefusal(await create({ token: openToken, player: { email: "not-an-email" } }), 400, { path: "/player/email" });
      expectRefusal(await create({ token: openToken, player: { tier: 4 } }), 400, { path: "/player/tier" });
    });

    it("verifies tokens signed with RS256, RS384 and RS512", async () => {
      for (const alg of ["RS256", "RS384", "RS512"] as const) {
        const session = await created(await create({ token: openToken, signedMetadataToken: await signMetadata(current, { player: { id: `p-${alg}` } }, { alg }) }));
        expect(session).toMatchObject({ verification: "verified", metadata: { player: { id: `p-${alg}` } } });
      }
    });

    it("verifies tokens of both keys of the JWKS (rotation)", async () => {
      for (const key of [current, previous]) {
        const session = await created(await create({ token: openToken, signedMetadataToken: await signMetadata(key, { player: { id: key.kid } }) }));
        expect(session.metadata.player).toEqual({ id: key.kid });
      }
      // The strict game only has the current key: a token of the previous one names an unknown kid there.
      expectRefusal(await create({ token: strictToken, signedMetadataToken: await signMetadata(previous, { player: { id: "p" } }) }), 400, {
        path: "/signedMetadataToken",
        message: 'kid "2026-10" names no key of the game\'s JWKS',
      });
    });

    describe("refuses a token that must not be trusted, with 400 and no session", () => {
      const head = (header: unknown) => b64(header);
      const claims = () => b64({ metadata: { player: { id: "intruder" } }, exp: inFiveMinutes() });
      const cases: [string, () => Promise<string>, string][] = [
        ["expired", () => signMetadata(current, { player: { id: "p" } }, { exp: "-1h" }), "has expired (exp)"],
        ["signed by another key under a known kid", () => signMetadata(stranger, { player: { id: "p" } }), "has a signature that does not verify with the key named by kid"],
        [
          "HS256 with the public key as the secret",
          async () => {
            const input = `${head({ alg: "HS256", kid: current.kid, typ: "JWT" })}.${claims()}`;
            return `${input}.${createHmac("sha256", JSON.stringify(current.publicJwk)).update(input).digest("base64url")}`;
          },
          'alg "HS256" is not accepted: sign with RS256, RS384 or RS512',
        ],
        ["alg none", async () => `${head({ alg: "none", kid: current.kid })}.${claims()}.`, 'alg "none" is not accepted: sign with RS256, RS384 or RS512'],
        ["with an unknown kid", () => signMetadata(current, { player: { id: "p" } }, { kid: "2020-01" }), 'kid "2020-01" names no key of the game\'s JWKS'],
        ["without exp", () => signMetadata(current, { player: { id: "p" } }, { exp: null }), "must hold the claim exp"],
        ["signed with a 1024-bit RSA key", async () => weak.token, 'kid "weak-1024" names a 1024-bit RSA key; keys must have at least 2048 bits'],
        ["that is not a JWT", async () => "garbage", "is not a signed JWT (compact JWS)"],
      ];

      it.each(cases)("%s", async (_name, token, message) => {
        const before = await sessionCount();
        expectRefusal(await create({ token: openToken, signedMetadataToken: await token() }), 400, { path: "/signedMetadataToken", message });
        expect(await sessionCount()).toBe(before);
      });
    });

    it("lets signed tags and fields win key by key, and a signed player replace the unsigned one wholesale", async () => {
      const session = await created(
        await create({
          token: openToken,
          player: { id: "spoofed", name: "Mallory", email: "mallory@example.com", tier: 3 },
          tags: ["unsigned"],
          fields: { level: 1, note: "kept", vip: false },
          signedMetadataToken: await signMetadata(current, { player: { id: "real", tier: 2 }, tags: ["signed"], fields: { level: 42, vip: true } }),
        }),
      );
      expect(session.verification).toBe("verified");
      expect(session.metadata).toEqual({ player: { id: "real", tier: 2 }, tags: ["signed"], fields: { level: 42, note: "kept", vip: true } });
    });

    it("keeps unsigned tags and player when the signature names neither, and does not vouch for that player", async () => {
      const session = await created(
        await create({ token: openToken, player: { id: "claimed" }, tags: ["mine"], signedMetadataToken: await signMetadata(current, { fields: { level: 5 } }) }),
      );
      expect(session.metadata).toEqual({ player: { id: "claimed" }, tags: ["mine"], fields: { level: 5 } });
      expect(session.verification).toBe("unverified");
    });

    it("refuses unverified identities (an unsigned id or email) in a game that blocks them, and lets anonymous and verified ones in", async () => {
      const before = await sessionCount();
      expectRefusal(await create({ token: strictToken, player: { id: "p-unverified", name: "Un" } }), 400, { path: "/signedMetadataToken" });
      expectRefusal(await create({ token: strictToken, player: { name: "Anon", email: "anon@example.com" } }), 400, { path: "/signedMetadataToken" });
      expect(await sessionCount()).toBe(before);
      expect((await created(await create({ token: strictToken, player: { name: "Anon" } }))).verification).toBe("anonymous");
      expect((await created(await create({ token: strictToken }))).verification).toBe("anonymous");
      const verified = await created(await create({ token: strictToken, player: { id: "ignored" }, signedMetadataToken: await signMetadata(current, { player: { id: "p-verified" } }) }));
      expect(verified).toMatchObject({ verification: "verified", metadata: { player: { id: "p-verified" } } });
    });
  });

  describe("GET /support/sessions/redirect", () => {
    it("answers 307 to the web support url with sid, keeping that url's query, without a body", async () => {
      const response = await redirect(`token=${openToken}&language=fr&resource=account-recovery`);
      expect(response.status, response.text).toBe(307);
      const location = new URL(response.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe("https://help.example.com/support");
      expect([...location.searchParams.keys()]).toEqual(["brand", "lang", "sid"]);
      expect(location.searchParams.get("brand")).toBe("galaxy");
      expect(location.searchParams.get("lang")).toBe("auto");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.text).toBe("");
      expect(await stored(location.searchParams.get("sid")!)).toMatchObject({ language: "fr", resource: "account-recovery", verification: "anonymous" });
    });

    it("reads player.*, comma-separated repeated tags and typed fields.<key> from the query, ignoring other parameters", async () => {
      const query = new URLSearchParams([
        ["token", openToken],
        ["player.id", "p-42"],
        ["player.name", "Ann Lee"],
        ["player.email", "ann@example.com"],
        ["player.tier", "2"],
        ["tags", "bug,crash"],
        ["tags", "vip"],
        ["fields.level", "17"],
        ["fields.vip", "true"],
        ["fields.note", "12"],
        ["fields.server", "eu"],
        ["fields.server", "us"],
        ["fields.unknown", "3"],
        ["utm_source", "launcher"],
      ]);
      const response = await redirect(query.toString());
      expect(response.status, response.text).toBe(307);
      const session = await stored(new URL(response.headers.get("location")!).searchParams.get("sid")!);
      expect(session.verification).toBe("unverified");
      expect(session.metadata).toEqual({
        player: { id: "p-42", name: "Ann Lee", email: "ann@example.com", tier: 2 },
        tags: ["bug", "crash", "vip"],
        fields: { level: 17, vip: true, note: "12", server: ["eu", "us"], unknown: "3" },
      });
    });

    it("leaves a value that does not fit a number or boolean field as text", async () => {
      const response = await redirect(`token=${openToken}&fields.level=high&fields.vip=yes`);
      const session = await stored(new URL(response.headers.get("location")!).searchParams.get("sid")!);
      expect(session.metadata.fields).toEqual({ level: "high", vip: "yes" });
    });

    it("lets a signed token in the query win over query metadata", async () => {
      const token = await signMetadata(current, { player: { id: "signed-id" }, fields: { level: 99 } });
      const response = await redirect(`token=${openToken}&signedMetadataToken=${token}&player.id=query-id&player.name=Query&fields.level=1&fields.note=kept`);
      expect(response.status, response.text).toBe(307);
      const session = await stored(new URL(response.headers.get("location")!).searchParams.get("sid")!);
      expect(session).toMatchObject({ verification: "verified", metadata: { player: { id: "signed-id" }, fields: { level: 99, note: "kept" } } });
    });

    it("answers 404 for an unknown token and 400 naming the query parameter otherwise", async () => {
      expectRefusal(await redirect(`token=${randomUUID()}`), 404);
      expectRefusal(await redirect("language=en"), 400, { path: "/query/token" });
      expectRefusal(await redirect(`token=${openToken}&language=xx`), 400, { path: "/query/language" });
      expectRefusal(await redirect(`token=${openToken}&resource=faq`), 400, { path: "/query/resource", message: "is not a resource of the game" });
      expectRefusal(await redirect(`token=${openToken}&player.tier=5`), 400, { path: "/query/player.tier" });
      expectRefusal(await redirect(`token=${openToken}&player.email=nope`), 400, { path: "/query/player.email" });
      const expired = await signMetadata(current, { player: { id: "p" } }, { exp: "-10m" });
      expectRefusal(await redirect(`token=${openToken}&signedMetadataToken=${expired}`), 400, { path: "/query/signedMetadataToken", message: "has expired (exp)" });
      expectRefusal(await redirect(`token=${strictToken}&player.id=p`), 400, { path: "/query/signedMetadataToken" });
    });

    it("sends a browser's refused navigation to the page's explanation (303, never stored), and API clients the JSON refusal", async () => {
      const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
      const cases: [string, string][] = [
        [`token=${randomUUID()}`, "token"],
        [`token=${openToken}&resource=faq`, "resource"],
        [`token=${openToken}&language=xx`, "language"],
        ["language=en", "link"],
        [`token=${strictToken}&player.id=p`, "link"],
      ];
      for (const [query, reason] of cases) {
        const response = await stack.request(`/support/sessions/redirect?${query}`, { headers: browser });
        expect(response.status, `${query}: ${response.text}`).toBe(303);
        const location = new URL(response.headers.get("location")!);
        expect(`${location.origin}${location.pathname}${location.search}${location.hash}`).toBe(`https://help.example.com/support?brand=galaxy&lang=auto#/refused/${reason}`);
        expect(response.headers.get("cache-control")).toBe("no-store");
        expect(response.text).toBe("");
      }
      // A browser's accepted navigation is the usual 307; a client that prefers JSON keeps the 404.
      expect((await stack.request(`/support/sessions/redirect?token=${openToken}`, { headers: browser })).status).toBe(307);
      expectRefusal(await stack.request(`/support/sessions/redirect?token=${randomUUID()}`, { headers: { accept: "application/json, text/html;q=0.5" } }), 404);
    });
  });

  describe("abuse limits of the public endpoints (429 rate_limited with retry-after)", () => {
    /** A client address of its own per test, named by X-Forwarded-For behind a trusted proxy. */
    let octet = 0;
    const newAddress = () => `203.0.113.${++octet}`;
    const from = (address: string) => ({ "x-forwarded-for": `${address}, 10.0.0.1` });
    /**
     * The limits count per fixed window of PUBLIC_RATE_LIMIT_WINDOW_SECONDS (60 s, aligned to the
     * clock): requests that straddle two windows see the count start again, which a slow machine
     * makes likely near a window's end. Waits for the next window when less than 10 s are left.
     */
    const awayFromWindowEnd = async () => {
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
    };

    function expectRateLimited(response: StackResponse, what: RegExp) {
      expect(response.status, response.text).toBe(429);
      expect(response.body).toEqual({ code: "rate_limited", message: expect.stringMatching(what) });
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }

    it("limits each client address, with one count shared by two gateway replicas", async () => {
      const settings = { PUBLIC_RATE_LIMIT_PER_ADDRESS: 3, PUBLIC_RATE_LIMIT_PER_TOKEN: 1_000_000, TRUST_PROXY: "true" };
      const [a, b] = await Promise.all([stack.startGateway(settings), stack.startGateway(settings)]);
      await awayFromWindowEnd();
      const address = newAddress();
      const post = (replica: typeof a) => replica.request("/support/sessions", { method: "POST", json: { token: openToken }, headers: from(address) });
      expect((await post(a)).status).toBe(200);
      expect((await post(b)).status).toBe(200);
      expect((await post(a)).status).toBe(200);
      expectRateLimited(await post(b), /from this address/);
      expectRateLimited(await post(a), /from this address/);
      expectRateLimited(await b.request(`/support/sessions/redirect?token=${openToken}`, { headers: from(address) }), /from this address/);
      // Another address is not affected.
      expect((await b.request("/support/sessions", { method: "POST", json: { token: openToken }, headers: from(newAddress()) })).status).toBe(200);
    });

    it("limits each environment token across addresses and replicas", async () => {
      const settings = { PUBLIC_RATE_LIMIT_PER_ADDRESS: 1_000_000, PUBLIC_RATE_LIMIT_PER_TOKEN: 4, TRUST_PROXY: "true" };
      const [a, b] = await Promise.all([stack.startGateway(settings), stack.startGateway(settings)]);
      await awayFromWindowEnd();
      for (const replica of [a, b, a, b]) {
        expect((await replica.request(`/support/sessions/redirect?token=${limitedToken}`, { headers: from(newAddress()) })).status).toBe(307);
      }
      expectRateLimited(await a.request(`/support/sessions/redirect?token=${limitedToken}`, { headers: from(newAddress()) }), /for this environment token/);
      expectRateLimited(await b.request("/support/sessions", { method: "POST", json: { token: limitedToken }, headers: from(newAddress()) }), /for this environment token/);
      // Another environment of the same game has its own budget.
      expect((await a.request(`/support/sessions/redirect?token=${quietToken}`, { headers: from(newAddress()) })).status).toBe(307);
    });

    it("counts malformed requests too", async () => {
      const gateway = await stack.startGateway({ PUBLIC_RATE_LIMIT_PER_ADDRESS: 2, TRUST_PROXY: "true" });
      await awayFromWindowEnd();
      const address = newAddress();
      expect((await gateway.request("/support/sessions", { method: "POST", json: { token: openToken, language: "xx" }, headers: from(address) })).status).toBe(400);
      expect((await gateway.request("/support/sessions/redirect?token=nope", { headers: from(address) })).status).toBe(400);
      expectRateLimited(await gateway.request("/support/sessions", { method: "POST", json: { token: openToken }, headers: from(address) }), /from this address/);
    });

    it("does not let one flooding address use up its token's budget", async () => {
      // A token of its own: counts are shared by every gateway, so a token used elsewhere in this window has a count already.
      const token = tenant.games.limited!.environments["flood-prod"]!.token;
      const gateway = await stack.startGateway({ PUBLIC_RATE_LIMIT_PER_ADDRESS: 1, PUBLIC_RATE_LIMIT_PER_TOKEN: 3, TRUST_PROXY: "true" });
      await awayFromWindowEnd();
      const flooder = newAddress();
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await gateway.request("/support/sessions", { method: "POST", json: { token }, headers: from(flooder) })).status);
      expect(statuses).toEqual([200, 429, 429, 429, 429, 429]);
      // The token has been charged once: two more clients still get in, the third is over.
      expect((await gateway.request("/support/sessions", { method: "POST", json: { token }, headers: from(newAddress()) })).status).toBe(200);
      expect((await gateway.request("/support/sessions", { method: "POST", json: { token }, headers: from(newAddress()) })).status).toBe(200);
      expectRateLimited(await gateway.request("/support/sessions", { method: "POST", json: { token }, headers: from(newAddress()) }), /for this environment token/);
    });

    it("ignores X-Forwarded-For unless a proxy is trusted", async () => {
      const gateway = await stack.startGateway({ PUBLIC_RATE_LIMIT_PER_ADDRESS: 1_000_000, PUBLIC_RATE_LIMIT_PER_TOKEN: 1_000_000 });
      const address = newAddress();
      await gateway.request("/support/sessions", { method: "POST", json: { token: openToken }, headers: from(address) });
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from players.rate_limits where bucket_key = ${`address:${address}`}`.execute(db);
      expect(rows[0]!.n).toBe(0);
    });
  });
});
