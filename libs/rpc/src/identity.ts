// Service identity: every RPC between the platform's processes carries a short-lived token the
// caller signed with its own Ed25519 key, and the callee accepts the call only when the token is
// signed by a key it trusts for that caller, is addressed to it, has not expired, and the caller
// may call the service (ALLOWED_CALLERS). A process that reaches a service port without a key
// the platform trusts can call nothing.
//
// Token: a JWT `<header>.<payload>.<signature>` (base64url, EdDSA over Ed25519), payload
// `{iss: caller, aud: callee, iat, exp}`, valid TOKEN_LIFETIME_SECONDS. The caller signs one per
// callee and reuses it until RENEW_BEFORE_SECONDS before it expires; the callee verifies a token
// once and then finds it in a bounded cache: once warm, a call costs neither a signature nor a
// verification, only two map lookups.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/** The request header carrying the caller's token (the admin RPCs keep `authorization` for the admin token). */
export const SERVICE_IDENTITY_HEADER = "service-identity";

/** Every process that may hold an identity: the six services, the gateway and the admin tool. */
export const IDENTITY_NAMES = ["gateway", "content", "tickets", "media", "players", "webhooks", "email", "admin"] as const;
export type IdentityName = (typeof IDENTITY_NAMES)[number];

/**
 * Who may call which service: the clients each process creates (gateway/src/clients.ts,
 * services/*\/src/clients.ts, players' server.ts, tools/admin). A service missing here may be
 * called by nobody; a caller missing from a list is refused with permission_denied. The admin
 * services also require the admin token (admin-token.ts): the identity says which program
 * calls, the token that an operator runs it.
 */
export const ALLOWED_CALLERS: Readonly<Record<string, readonly IdentityName[]>> = {
  "content.v1.ContentService": ["gateway", "tickets", "media", "players", "webhooks", "email"],
  "content.v1.ContentAdminService": ["admin"],
  "content.v1.AgentAccessService": ["gateway"],
  // tickets: a rule's sendCannedResponse action (RenderCannedReply, and the ids a rule names).
  "content.v1.CannedResponseService": ["gateway", "tickets"],
  "content.v1.CompanySettingsService": ["gateway"],
  "tickets.v1.TicketsService": ["gateway", "players", "email"],
  "tickets.v1.PlayerSideService": ["gateway"],
  "media.v1.MediaService": ["gateway", "tickets", "players", "email"],
  "players.v1.PlayersService": ["gateway", "tickets"],
  "players.v1.PlayersAdminService": ["admin"],
  "webhooks.v1.WebhooksService": ["gateway"],
  "webhooks.v1.WebhooksAdminService": ["admin"],
  // A rule's callWebhook URLs, checked when it is saved.
  "webhooks.v1.RuleTargetsService": ["tickets"],
  "tickets.v1.TicketsAdminService": ["admin"],
  "email.v1.EmailService": ["gateway"],
};

/** Always open: the kubelet's and the gateway's health checks carry no identity. */
const OPEN_SERVICES = new Set(["grpc.health.v1.Health"]);

/**
 * The issuer of clients that name no identity, in a development process only (see
 * developmentIdentity): test clients calling services started in the same process.
 */
export const DEVELOPMENT_CALLER = "development";

export const TOKEN_LIFETIME_SECONDS = 300;
/** A caller signs a new token when its current one has less than this left. */
const RENEW_BEFORE_SECONDS = 120;
/** Clock difference tolerated between two hosts. */
const CLOCK_SKEW_SECONDS = 30;
/** A token living longer than this is refused whoever signed it: a leaked token stays useful for minutes at most. */
const MAX_LIFETIME_SECONDS = 600;
const MAX_TOKEN_LENGTH = 1024;
/** Verified tokens remembered per process: callers × replicas × one or two live tokens each, with room. */
const VERIFIED_CACHE_MAX = 4096;

const HEADER_PART = Buffer.from(JSON.stringify({ alg: "EdDSA", typ: "JWT" })).toString("base64url");

/** The service a call is addressed to: the proto package's first segment (`content.v1.ContentService` → `content`). */
export function calleeOf(typeName: string): string {
  const dot = typeName.indexOf(".");
  return dot === -1 ? typeName : typeName.slice(0, dot);
}

// ---- keys -----------------------------------------------------------------------------------

/** A new Ed25519 key pair: the private key as PKCS#8 PEM, the public key as base64url of its 32 bytes. */
export function generateIdentityKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey: privateKey.export({ format: "pem", type: "pkcs8" }).toString(), publicKey: rawPublicKey(publicKey) };
}

function rawPublicKey(key: KeyObject): string {
  return key.export({ format: "jwk" }).x!;
}

/** The public key (base64url, 32 bytes) of a PKCS#8 PEM private key: what goes into the trust. */
export function publicKeyOf(privateKeyPem: string): string {
  return rawPublicKey(createPublicKey(parsePrivateKey(privateKeyPem)));
}

function parsePrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem.trim(), format: "pem" });
  } catch {
    throw new Error("SERVICE_IDENTITY_KEY: not a PKCS#8 PEM private key");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error("SERVICE_IDENTITY_KEY: not an Ed25519 key");
  return key;
}

function parsePublicKey(raw: string, where: string): KeyObject {
  const bytes = Buffer.from(raw, "base64url");
  if (bytes.length !== 32 || bytes.toString("base64url") !== raw) throw new Error(`SERVICE_IDENTITY_TRUST: ${where} is not the base64url of a 32-byte Ed25519 public key`);
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw }, format: "jwk" });
}

/** The trusted public keys per caller. */
export type Trust = ReadonlyMap<string, readonly KeyObject[]>;

/**
 * Parses `{"<caller>": ["<public key>", ...], ...}`: several keys per caller while one is
 * rotated. Only the platform's own names are accepted (never DEVELOPMENT_CALLER).
 */
export function parseTrust(json: string): Trust {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error("SERVICE_IDENTITY_TRUST: not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error('SERVICE_IDENTITY_TRUST: must be an object {"<service>": ["<public key>", ...]}');
  const trust = new Map<string, KeyObject[]>();
  for (const [name, keys] of Object.entries(value)) {
    // A process this release does not know (one a later release adds) is skipped: the trust
    // ConfigMap can name it before every service runs the release that calls it.
    if (!(IDENTITY_NAMES as readonly string[]).includes(name)) continue;
    if (!Array.isArray(keys) || keys.some((key) => typeof key !== "string")) throw new Error(`SERVICE_IDENTITY_TRUST: ${name} must list public keys (strings)`);
    trust.set(name, (keys as string[]).map((key, index) => parsePublicKey(key, `${name}[${index}]`)));
  }
  return trust;
}

// ---- signing (the caller) -------------------------------------------------------------------

export interface ServiceCaller {
  /** The caller's name, the tokens' `iss`. */
  readonly name: string;
  /** A token for calls to `audience`, signed at most once per RENEW interval. */
  tokenFor(audience: string): string;
}

export function createServiceCaller(name: string, privateKey: KeyObject | string, now: () => number = Date.now): ServiceCaller {
  const key = typeof privateKey === "string" ? parsePrivateKey(privateKey) : privateKey;
  const current = new Map<string, { token: string; renewAt: number }>();
  return {
    name,
    tokenFor(audience) {
      const nowMs = now();
      const cached = current.get(audience);
      if (cached && nowMs < cached.renewAt) return cached.token;
      const iat = Math.floor(nowMs / 1000);
      const exp = iat + TOKEN_LIFETIME_SECONDS;
      const signingInput = `${HEADER_PART}.${Buffer.from(JSON.stringify({ iss: name, aud: audience, iat, exp })).toString("base64url")}`;
      const token = `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString("base64url")}`;
      current.set(audience, { token, renewAt: (exp - RENEW_BEFORE_SECONDS) * 1000 });
      return token;
    },
  };
}

/** Client side: every call to a platform service carries the caller's token (health checks too, harmlessly). */
export function serviceIdentityInterceptor(caller: ServiceCaller): Interceptor {
  return (next) => async (request) => {
    const audience = calleeOf(request.service.typeName);
    if (audience !== "grpc") request.header.set(SERVICE_IDENTITY_HEADER, caller.tokenFor(audience));
    return next(request);
  };
}

// ---- verifying (the callee) -----------------------------------------------------------------

export type VerifyResult = { ok: true; caller: string } | { ok: false; code: Code.Unauthenticated | Code.PermissionDenied; reason: string };

export interface ServiceVerifier {
  /** The service itself: tokens must name it as `aud`. */
  readonly audience: string;
  /** Whether `token` (the header's value) may call `typeName`; `reason` is for the log only, never for the caller. */
  check(token: string | null, typeName: string): VerifyResult;
}

export interface VerifierOptions {
  audience: string;
  trust: Trust;
  /** Development trust (developmentIdentity): DEVELOPMENT_CALLER may call every service. */
  development?: boolean;
  now?: () => number;
}

export function createServiceVerifier(options: VerifierOptions): ServiceVerifier {
  const now = options.now ?? Date.now;
  // Tokens whose signature and claims were checked, by their text; expiry is checked on every use.
  const verified = new Map<string, { iss: string; exp: number }>();
  const refuse = (reason: string): VerifyResult => ({ ok: false, code: Code.Unauthenticated, reason });

  function verifyToken(token: string, nowSeconds: number): { iss: string; exp: number } | string {
    if (token.length > MAX_TOKEN_LENGTH) return "token too long";
    const [header, payload, signature, extra] = token.split(".");
    if (header !== HEADER_PART || payload === undefined || signature === undefined || extra !== undefined) return "malformed token";
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    } catch {
      return "malformed token";
    }
    const { iss, aud, iat, exp } = claims;
    if (typeof iss !== "string" || typeof aud !== "string" || typeof iat !== "number" || typeof exp !== "number") return "malformed claims";
    if (aud !== options.audience) return "token for another service";
    if (exp <= nowSeconds - CLOCK_SKEW_SECONDS) return "expired token";
    if (iat > nowSeconds + CLOCK_SKEW_SECONDS || exp - iat > MAX_LIFETIME_SECONDS) return "token lifetime out of bounds";
    const keys = options.trust.get(iss);
    if (!keys) return "untrusted issuer";
    const signingInput = Buffer.from(`${header}.${payload}`);
    const signatureBytes = Buffer.from(signature, "base64url");
    if (!keys.some((key) => verify(null, signingInput, key, signatureBytes))) return "bad signature";
    return { iss, exp };
  }

  return {
    audience: options.audience,
    check(token, typeName) {
      if (!token) return refuse("no token");
      const nowSeconds = now() / 1000;
      let claims = verified.get(token);
      if (claims === undefined) {
        const result = verifyToken(token, nowSeconds);
        if (typeof result === "string") return refuse(result);
        claims = result;
        // Oldest first: those are the ones expiring first.
        if (verified.size >= VERIFIED_CACHE_MAX) verified.delete(verified.keys().next().value!);
        verified.set(token, claims);
      } else if (claims.exp <= nowSeconds - CLOCK_SKEW_SECONDS) {
        verified.delete(token);
        return refuse("expired token");
      }
      const allowed = ALLOWED_CALLERS[typeName];
      if ((options.development && claims.iss === DEVELOPMENT_CALLER) || allowed?.includes(claims.iss as IdentityName)) return { ok: true, caller: claims.iss };
      return { ok: false, code: Code.PermissionDenied, reason: `${claims.iss} may not call ${typeName}` };
    },
  };
}

/**
 * Server side: refuses a call without a valid token (unauthenticated) or from a caller the
 * service does not allow (permission_denied), with fixed messages; `onRefused` learns why.
 */
export function serviceIdentityGate(verifier: ServiceVerifier, onRefused?: (reason: string, procedure: string) => void): Interceptor {
  return (next) => async (request) => {
    const typeName = request.service.typeName;
    if (OPEN_SERVICES.has(typeName)) return next(request);
    const result = verifier.check(request.header.get(SERVICE_IDENTITY_HEADER), typeName);
    if (!result.ok) {
      onRefused?.(result.reason, `${typeName}/${request.method.name}`);
      throw result.code === Code.PermissionDenied
        ? new ConnectError("this caller may not call this service", Code.PermissionDenied)
        : new ConnectError("missing or invalid service identity", Code.Unauthenticated);
    }
    return next(request);
  };
}

// ---- configuration --------------------------------------------------------------------------

/** The environment variables of a process's identity (read by @support/runtime's config specs). */
export interface ServiceIdentitySettings {
  NODE_ENV?: string;
  /** The process's own private key (PKCS#8 PEM), or the file holding it. */
  SERVICE_IDENTITY_KEY?: string;
  SERVICE_IDENTITY_KEY_FILE?: string;
  /** The trusted public keys per caller (JSON, see parseTrust), or the file holding them. */
  SERVICE_IDENTITY_TRUST?: string;
  SERVICE_IDENTITY_TRUST_FILE?: string;
}

function valueOrFile(value: string | undefined, file: string | undefined, name: string): string {
  if (value?.trim()) return value;
  if (!file?.trim()) return "";
  try {
    return readFileSync(file.trim(), "utf8");
  } catch (error) {
    throw new Error(`${name}_FILE: cannot read ${file.trim()} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

interface DevelopmentIdentity {
  privateKey: KeyObject;
  publicKey: string;
}

const DEVELOPMENT_KEY = Symbol.for("@support/rpc.developmentIdentity");

/**
 * The key pair of a development process without configured keys: made at first use, never
 * written anywhere, so only code of this same process can sign with it. Its services trust it
 * (for every caller name), its clients sign with it: services and test clients started in one
 * process call each other, and nothing outside the process can call them.
 */
function developmentIdentity(): DevelopmentIdentity {
  const holder = globalThis as { [DEVELOPMENT_KEY]?: DevelopmentIdentity };
  if (!holder[DEVELOPMENT_KEY]) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    holder[DEVELOPMENT_KEY] = { privateKey, publicKey: rawPublicKey(publicKey) };
  }
  return holder[DEVELOPMENT_KEY];
}

const isProduction = (settings: ServiceIdentitySettings) => settings.NODE_ENV === "production";

/**
 * The identity a process signs its calls with. Without a configured key: refused in production
 * (the process must not start) and beside a configured trust (half a configuration); otherwise
 * the process's development key.
 */
export function loadServiceCaller(name: IdentityName, settings: ServiceIdentitySettings): ServiceCaller {
  const key = valueOrFile(settings.SERVICE_IDENTITY_KEY, settings.SERVICE_IDENTITY_KEY_FILE, "SERVICE_IDENTITY_KEY");
  if (key) return createServiceCaller(name, key);
  if (isProduction(settings) || settings.SERVICE_IDENTITY_TRUST?.trim() || settings.SERVICE_IDENTITY_TRUST_FILE?.trim()) {
    throw new Error("SERVICE_IDENTITY_KEY (or SERVICE_IDENTITY_KEY_FILE): required with SERVICE_IDENTITY_TRUST and when NODE_ENV=production");
  }
  return createServiceCaller(name, developmentIdentity().privateKey);
}

/**
 * The verifier of a service's incoming calls. With neither key nor trust configured, a
 * development process trusts only its own development key (and DEVELOPMENT_CALLER, the test
 * clients of the same process); production refuses to start. Half a configuration is an error
 * in both, never a silent fallback.
 */
export function loadServiceVerifier(name: IdentityName, settings: ServiceIdentitySettings): { verifier: ServiceVerifier; development: boolean } {
  const key = valueOrFile(settings.SERVICE_IDENTITY_KEY, settings.SERVICE_IDENTITY_KEY_FILE, "SERVICE_IDENTITY_KEY");
  const trust = valueOrFile(settings.SERVICE_IDENTITY_TRUST, settings.SERVICE_IDENTITY_TRUST_FILE, "SERVICE_IDENTITY_TRUST");
  if (trust) return { verifier: createServiceVerifier({ audience: name, trust: parseTrust(trust) }), development: false };
  if (key || isProduction(settings)) throw new Error("SERVICE_IDENTITY_TRUST (or SERVICE_IDENTITY_TRUST_FILE): required with SERVICE_IDENTITY_KEY and when NODE_ENV=production");
  const development = developmentIdentity();
  const keys = [parsePublicKey(development.publicKey, "development")];
  const devTrust = new Map<string, KeyObject[]>([...IDENTITY_NAMES, DEVELOPMENT_CALLER].map((caller) => [caller, keys]));
  return { verifier: createServiceVerifier({ audience: name, trust: devTrust, development: true }), development: true };
}

/**
 * The caller of clients created without an identity: DEVELOPMENT_CALLER with the development
 * key outside production (test clients of services started in the same process), none in
 * production (their calls are refused).
 */
export function defaultServiceCaller(env: { NODE_ENV?: string } = process.env): ServiceCaller | undefined {
  if (isProduction(env)) return undefined;
  return createServiceCaller(DEVELOPMENT_CALLER, developmentIdentity().privateKey);
}

// ---- generation (local stacks, operators) ---------------------------------------------------

export interface GeneratedIdentities {
  /** Private key (PKCS#8 PEM) per process. */
  keys: Record<IdentityName, string>;
  /** The trust every service is given: JSON of the public keys per process. */
  trust: string;
}

/** A fresh key for every process and the trust naming them all (one run of a local stack or test). */
export function generateServiceIdentities(): GeneratedIdentities {
  const keys = {} as Record<IdentityName, string>;
  const trust: Record<string, string[]> = {};
  for (const name of IDENTITY_NAMES) {
    const pair = generateIdentityKey();
    keys[name] = pair.privateKey;
    trust[name] = [pair.publicKey];
  }
  return { keys, trust: JSON.stringify(trust) };
}

/** The environment of process `name` with generated identities. */
export function identityEnv(identities: GeneratedIdentities, name: IdentityName): { SERVICE_IDENTITY_KEY: string; SERVICE_IDENTITY_TRUST: string } {
  return { SERVICE_IDENTITY_KEY: identities.keys[name], SERVICE_IDENTITY_TRUST: identities.trust };
}
