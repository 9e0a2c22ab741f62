// Service identity: the token logic (expiry, audience, rotation, caching) and, over the real h2c
// transport, every service of the platform refusing calls without a trusted identity or from a
// caller it does not allow.
import { generateKeyPairSync, sign } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@support/logging";
import {
  AgentAccessService, ContentAdminService, ContentService, MediaService, PlayerSideService, PlayersAdminService, PlayersService, TicketsAdminService, TicketsService, WebhooksAdminService,
  WebhooksService, health,
} from "@support/proto";
import {
  ALLOWED_CALLERS, DEVELOPMENT_CALLER, IDENTITY_NAMES, SERVICE_IDENTITY_HEADER, TOKEN_LIFETIME_SECONDS, createRpcServer, createServiceCaller,
  createServiceVerifier, defaultServiceCaller, generateIdentityKey, generateServiceIdentities, loadServiceCaller, loadServiceVerifier,
  parseTrust, publicKeyOf, type IdentityName, type RpcServer,
} from "./index.ts";

const silent = createLogger({ service: "test", destination: new Writable({ write: (_c, _e, done) => done() }) });

describe("service identity tokens", () => {
  const gateway = generateIdentityKey();
  const trust = parseTrust(JSON.stringify({ gateway: [gateway.publicKey] }));

  it("accepts a token addressed to the service, from a trusted and allowed caller", () => {
    const verifier = createServiceVerifier({ audience: "content", trust });
    const token = createServiceCaller("gateway", gateway.privateKey).tokenFor("content");
    expect(verifier.check(token, "content.v1.ContentService")).toEqual({ ok: true, caller: "gateway" });
  });

  it("refuses a token for another service, a missing one and garbage", () => {
    const verifier = createServiceVerifier({ audience: "content", trust });
    const forTickets = createServiceCaller("gateway", gateway.privateKey).tokenFor("tickets");
    expect(verifier.check(forTickets, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    expect(verifier.check(null, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    expect(verifier.check("a.b.c", "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    expect(verifier.check("x".repeat(5000), "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
  });

  it("refuses a token signed by a key not trusted for its issuer (forged)", () => {
    const verifier = createServiceVerifier({ audience: "content", trust });
    const intruder = generateIdentityKey();
    const forged = createServiceCaller("gateway", intruder.privateKey).tokenFor("content");
    expect(verifier.check(forged, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    // A valid token whose payload was changed: its signature no longer matches.
    const [header, , signature] = createServiceCaller("gateway", gateway.privateKey).tokenFor("content").split(".");
    const payload = Buffer.from(JSON.stringify({ iss: "gateway", aud: "content", iat: 1, exp: 9_999_999_999 })).toString("base64url");
    expect(verifier.check(`${header}.${payload}.${signature}`, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
  });

  it("refuses an expired token, also once it was cached, and a token living too long", () => {
    let now = Date.UTC(2026, 10, 26, 8, 0, 0);
    const verifier = createServiceVerifier({ audience: "content", trust, now: () => now });
    const caller = createServiceCaller("gateway", gateway.privateKey, () => now);
    const token = caller.tokenFor("content");
    expect(verifier.check(token, "content.v1.ContentService").ok).toBe(true);
    now += (TOKEN_LIFETIME_SECONDS + 31) * 1000; // past exp and the 30 s clock skew
    expect(verifier.check(token, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    // A fresh verifier (nothing cached) refuses it too.
    expect(createServiceVerifier({ audience: "content", trust, now: () => now }).check(token, "content.v1.ContentService").ok).toBe(false);
    // The caller has signed a new one meanwhile.
    expect(caller.tokenFor("content")).not.toBe(token);
    expect(verifier.check(caller.tokenFor("content"), "content.v1.ContentService").ok).toBe(true);

    const key = generateKeyPairSync("ed25519");
    const long = handMadeToken({ iss: "gateway", aud: "content", iat: now / 1000, exp: now / 1000 + 3600 }, key.privateKey);
    const verifierOfKey = createServiceVerifier({ audience: "content", trust: new Map([["gateway", [key.publicKey]]]), now: () => now });
    expect(verifierOfKey.check(long, "content.v1.ContentService")).toMatchObject({ ok: false, code: Code.Unauthenticated });
    const fine = handMadeToken({ iss: "gateway", aud: "content", iat: now / 1000, exp: now / 1000 + 60 }, key.privateKey);
    expect(verifierOfKey.check(fine, "content.v1.ContentService").ok).toBe(true);
  });

  it("reuses a token until shortly before it expires (no signature per call)", () => {
    let now = Date.UTC(2026, 10, 26, 8, 0, 0);
    const caller = createServiceCaller("gateway", gateway.privateKey, () => now);
    const first = caller.tokenFor("content");
    now += 170_000;
    expect(caller.tokenFor("content")).toBe(first);
    expect(caller.tokenFor("tickets")).not.toBe(first);
    now += 20_000; // 190 s: less than 120 s left
    expect(caller.tokenFor("content")).not.toBe(first);
  });

  it("trusts every key listed for a caller (rotation) and only those", () => {
    const next = generateIdentityKey();
    const both = parseTrust(JSON.stringify({ gateway: [gateway.publicKey, next.publicKey] }));
    const verifier = createServiceVerifier({ audience: "content", trust: both });
    expect(verifier.check(createServiceCaller("gateway", gateway.privateKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    expect(verifier.check(createServiceCaller("gateway", next.privateKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    const retired = createServiceVerifier({ audience: "content", trust: parseTrust(JSON.stringify({ gateway: [next.publicKey] })) });
    expect(retired.check(createServiceCaller("gateway", gateway.privateKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(false);
    expect(publicKeyOf(next.privateKey)).toBe(next.publicKey);
  });

  it("answers permission_denied to a trusted caller the service does not allow", () => {
    const tickets = generateIdentityKey();
    const verifier = createServiceVerifier({ audience: "content", trust: parseTrust(JSON.stringify({ tickets: [tickets.publicKey] })) });
    const token = createServiceCaller("tickets", tickets.privateKey).tokenFor("content");
    expect(verifier.check(token, "content.v1.ContentService").ok).toBe(true);
    expect(verifier.check(token, "content.v1.ContentAdminService")).toMatchObject({ ok: false, code: Code.PermissionDenied });
    expect(verifier.check(token, "content.v1.Unknown")).toMatchObject({ ok: false, code: Code.PermissionDenied });
  });

  it("skips callers it does not know (a later release's process), trusting nothing of theirs", () => {
    const later = generateIdentityKey();
    const trust = parseTrust(JSON.stringify({ "a-later-service": [later.publicKey], [DEVELOPMENT_CALLER]: [gateway.publicKey] }));
    expect([...trust.keys()]).toEqual([]);
    const verifier = createServiceVerifier({ audience: "content", trust });
    expect(verifier.check(createServiceCaller("gateway", gateway.privateKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(false);
  });

  it("refuses a trust that holds no valid key", () => {
    expect(() => parseTrust(JSON.stringify({ gateway: ["abc"] }))).toThrow(/32-byte/);
    expect(() => parseTrust("[]")).toThrow();
    expect(() => parseTrust("nope")).toThrow(/not JSON/);
  });
});

describe("service identity configuration", () => {
  it("refuses to start in production without keys, and never falls back on half a configuration", () => {
    expect(() => loadServiceVerifier("content", { NODE_ENV: "production" })).toThrow(/SERVICE_IDENTITY_TRUST/);
    expect(() => loadServiceCaller("content", { NODE_ENV: "production" })).toThrow(/SERVICE_IDENTITY_KEY/);
    const ids = generateServiceIdentities();
    expect(() => loadServiceVerifier("content", { SERVICE_IDENTITY_KEY: ids.keys.content })).toThrow(/SERVICE_IDENTITY_TRUST/);
    expect(() => loadServiceCaller("content", { SERVICE_IDENTITY_TRUST: ids.trust })).toThrow(/SERVICE_IDENTITY_KEY/);
    expect(() => loadServiceCaller("content", { SERVICE_IDENTITY_KEY: "not a key" })).toThrow(/PKCS#8/);
    expect(() => loadServiceCaller("content", { SERVICE_IDENTITY_KEY_FILE: "/nonexistent/key" })).toThrow(/cannot read/);
    expect(defaultServiceCaller({ NODE_ENV: "production" })).toBeUndefined();
  });

  it("reads the key and the trust inline or from files", () => {
    const ids = generateServiceIdentities();
    const dir = mkdtempSync(join(tmpdir(), "identity-"));
    writeFileSync(join(dir, "tickets.key"), ids.keys.tickets);
    writeFileSync(join(dir, "trust.json"), ids.trust);
    const caller = loadServiceCaller("tickets", { NODE_ENV: "production", SERVICE_IDENTITY_KEY_FILE: join(dir, "tickets.key") });
    const { verifier, development } = loadServiceVerifier("content", { NODE_ENV: "production", SERVICE_IDENTITY_KEY: ids.keys.content, SERVICE_IDENTITY_TRUST_FILE: join(dir, "trust.json") });
    expect(development).toBe(false);
    expect(verifier.check(caller.tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    // The development caller of this process is not trusted by a configured service.
    expect(verifier.check(defaultServiceCaller({})!.tokenFor("content"), "content.v1.ContentService").ok).toBe(false);
  });

  it("without keys in development, trusts only this process's own key", () => {
    const { verifier, development } = loadServiceVerifier("content", {});
    expect(development).toBe(true);
    expect(verifier.check(loadServiceCaller("tickets", {}).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    expect(verifier.check(defaultServiceCaller({})!.tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    // Another process's key (here: any key not made by this process) is refused, whatever name it claims.
    const other = generateIdentityKey();
    expect(verifier.check(createServiceCaller("gateway", other.privateKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(false);
    // The allow-lists still apply to the services' own names.
    expect(verifier.check(loadServiceCaller("tickets", {}).tokenFor("content"), "content.v1.ContentAdminService").ok).toBe(false);
  });
});

/** What the token logic would refuse to make: used to test the verifier's bounds. */
function handMadeToken(claims: Record<string, unknown>, key: ReturnType<typeof generateKeyPairSync>["privateKey"]): string {
  const input = `${Buffer.from(JSON.stringify({ alg: "EdDSA", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString("base64url")}`;
}

// Every service of the platform, served with no implementation: a call that passes the identity
// check is answered `unimplemented` by the handler, one that does not is refused before it.
const SERVICES: DescService[] = [
  ContentService, ContentAdminService, AgentAccessService, TicketsService, PlayerSideService, MediaService, PlayersService, PlayersAdminService, WebhooksService,
  WebhooksAdminService, TicketsAdminService,
];

describe.each(SERVICES.map((service) => [service.typeName, service] as const))("%s over h2c", (typeName, service) => {
  const audience = typeName.slice(0, typeName.indexOf(".")) as IdentityName;
  const ids = generateServiceIdentities();
  let server: RpcServer;
  let baseUrl = "";

  beforeAll(async () => {
    const { verifier } = loadServiceVerifier(audience, { NODE_ENV: "production", SERVICE_IDENTITY_KEY: ids.keys[audience], SERVICE_IDENTITY_TRUST: ids.trust });
    server = createRpcServer({
      serviceName: typeName,
      logger: silent,
      isReady: async () => true,
      port: 0,
      host: "127.0.0.1",
      identity: verifier,
      routes: (router) => router.service(service, {}),
    });
    baseUrl = `http://127.0.0.1:${(await server.start()).port}`;
  });
  afterAll(() => server.stop());

  /** Calls the service's first procedure with an empty message; resolves with the Connect code. */
  async function codeOf(header?: (audience: string) => string): Promise<Code> {
    const transport = createConnectTransport({
      baseUrl,
      httpVersion: "2",
      interceptors: header ? [(next) => (request) => (request.header.set(SERVICE_IDENTITY_HEADER, header(audience)), next(request))] : [],
    });
    const client = createClient(service, transport) as unknown as Record<string, (input: object) => Promise<unknown>>;
    const method = service.methods[0]!;
    try {
      if (method.methodKind === "server_streaming") {
        for await (const message of client[method.localName]!({}) as unknown as AsyncIterable<unknown>) void message;
      } else {
        await client[method.localName]!({});
      }
      return Code.Unknown;
    } catch (error) {
      return ConnectError.from(error).code;
    }
  }

  const token = (caller: IdentityName, key = ids.keys[caller]) => (to: string) => createServiceCaller(caller, key).tokenFor(to);

  it("refuses a call without service identity (unauthenticated)", async () => {
    expect(await codeOf()).toBe(Code.Unauthenticated);
  });

  it("refuses a forged token, an expired one and one addressed to another service", async () => {
    const allowed = ALLOWED_CALLERS[typeName]![0]!;
    expect(await codeOf(token(allowed, generateIdentityKey().privateKey))).toBe(Code.Unauthenticated);
    const past = Date.now() - 3600_000;
    expect(await codeOf((to) => createServiceCaller(allowed, ids.keys[allowed], () => past).tokenFor(to))).toBe(Code.Unauthenticated);
    const elsewhere = audience === "content" ? "media" : "content";
    expect(await codeOf(() => createServiceCaller(allowed, ids.keys[allowed]).tokenFor(elsewhere))).toBe(Code.Unauthenticated);
    // This process's development caller is no identity to a configured service.
    expect(await codeOf((to) => defaultServiceCaller({})!.tokenFor(to))).toBe(Code.Unauthenticated);
  });

  it("refuses callers it does not allow (permission_denied) and lets the allowed ones through", async () => {
    const allowed = ALLOWED_CALLERS[typeName]!;
    for (const caller of IDENTITY_NAMES) {
      expect(await codeOf(token(caller)), `${caller} -> ${typeName}`).toBe(allowed.includes(caller) ? Code.Unimplemented : Code.PermissionDenied);
    }
  });

  it("keeps the health service open for probes", async () => {
    const client = createClient(health.Health, createConnectTransport({ baseUrl, httpVersion: "2" }));
    expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
  });
});

describe("createRpcServer", () => {
  it("listens on 127.0.0.1 unless told otherwise", async () => {
    const server = createRpcServer({ serviceName: "x", logger: silent, isReady: async () => true, port: 0, routes: () => {} });
    const { port } = await server.start();
    try {
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      const { networkInterfaces } = await import("node:os");
      const external = Object.values(networkInterfaces()).flat().find((address) => address && address.family === "IPv4" && !address.internal);
      if (external) await expect(fetch(`http://${external.address}:${port}/healthz`)).rejects.toThrow();
    } finally {
      await server.stop();
    }
  });
});
