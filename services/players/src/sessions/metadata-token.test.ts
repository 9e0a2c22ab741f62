import { createHmac, createSign, generateKeyPairSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { isAppError, validationError } from "@support/errors";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from "jose";
import { checkMetadataToken, rsaModulusBits, verifyMetadataToken } from "./metadata-token.ts";

interface KeyPair {
  kid: string;
  privateJwk: JWK;
  jwk: JWK;
}

async function rsaKey(kid: string): Promise<KeyPair> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  return { kid, privateJwk: await exportJWK(privateKey), jwk: { ...(await exportJWK(publicKey)), kid, use: "sig" } };
}

const metadata = { player: { id: "p-1", name: "Ann" }, tags: ["vip"], fields: { level: 7 } };
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

async function sign(key: KeyPair, options: { alg?: string; claims?: Record<string, unknown>; kid?: string | null; exp?: number | null } = {}) {
  const alg = options.alg ?? "RS256";
  const header: { alg: string; kid?: string } = { alg };
  if (options.kid !== null) header.kid = options.kid ?? key.kid;
  const jwt = new SignJWT(options.claims ?? { metadata }).setProtectedHeader(header);
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? inAnHour());
  // A WebCrypto key is bound to one hash: import the private key for the algorithm wanted.
  return jwt.sign((await importJWK({ ...key.privateJwk, alg: undefined }, alg)) as CryptoKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function refusal(token: string, jwks: unknown): Promise<string> {
  try {
    await verifyMetadataToken(token, jwks);
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument") {
      const issues = error.details?.issues ?? [];
      expect(issues).toHaveLength(1);
      expect(issues[0]!.path).toBe("/signedMetadataToken");
      return issues[0]!.message;
    }
    throw error;
  }
  throw new Error("expected the token to be refused");
}

describe("signedMetadataToken verification", () => {
  let current: KeyPair;
  let previous: KeyPair;
  let stranger: KeyPair;
  let jwks: { keys: JWK[] };

  beforeAll(async () => {
    [current, previous, stranger] = await Promise.all([rsaKey("2026-11"), rsaKey("2026-10"), rsaKey("2026-11")]);
    jwks = { keys: [current.jwk, previous.jwk] };
  });

  it("returns the metadata claim of a token signed with RS256, RS384 or RS512", async () => {
    for (const alg of ["RS256", "RS384", "RS512"]) {
      expect(await verifyMetadataToken(await sign(current, { alg }), jwks)).toEqual(metadata);
    }
  });

  it("verifies tokens of either key while both are in the JWKS (rotation)", async () => {
    expect(await verifyMetadataToken(await sign(current), jwks)).toEqual(metadata);
    expect(await verifyMetadataToken(await sign(previous), jwks)).toEqual(metadata);
    expect(await refusal(await sign(previous), { keys: [current.jwk] })).toBe('kid "2026-10" names no key of the game\'s JWKS');
  });

  it("refuses a token signed by another key under a known kid", async () => {
    expect(await refusal(await sign(stranger), jwks)).toBe("has a signature that does not verify with the key named by kid");
  });

  it("refuses an unknown kid and a token without kid, even with a one-key JWKS", async () => {
    expect(await refusal(await sign(current, { kid: "nope" }), jwks)).toBe('kid "nope" names no key of the game\'s JWKS');
    expect(await refusal(await sign(current, { kid: null }), { keys: [current.jwk] })).toBe("must name its key in the header parameter kid");
  });

  it("refuses an expired token and one without exp", async () => {
    expect(await refusal(await sign(current, { exp: Math.floor(Date.now() / 1000) - 3600 }), jwks)).toBe("has expired (exp)");
    expect(await refusal(await sign(current, { exp: null }), jwks)).toBe("must hold the claim exp");
  });

  it("refuses a token that is not valid yet", async () => {
    const token = await sign(current, { claims: { metadata, nbf: Math.floor(Date.now() / 1000) + 600 } });
    expect(await refusal(token, jwks)).toBe("is not valid yet (nbf)");
  });

  it("refuses HS256 signed with the public modulus as the secret (algorithm confusion)", async () => {
    const head = b64({ alg: "HS256", kid: current.kid, typ: "JWT" });
    const body = b64({ metadata, exp: inAnHour() });
    const mac = createHmac("sha256", current.jwk.n!).update(`${head}.${body}`).digest("base64url");
    expect(await refusal(`${head}.${body}.${mac}`, jwks)).toBe('alg "HS256" is not accepted: sign with RS256, RS384 or RS512');
  });

  it("refuses alg none and other asymmetric algorithms", async () => {
    const unsigned = `${b64({ alg: "none", kid: current.kid })}.${b64({ metadata, exp: inAnHour() })}.`;
    expect(await refusal(unsigned, jwks)).toBe('alg "none" is not accepted: sign with RS256, RS384 or RS512');
    const ps = await refusal(`${b64({ alg: "PS256", kid: current.kid })}.${b64({ metadata, exp: inAnHour() })}.c2ln`, jwks);
    expect(ps).toBe('alg "PS256" is not accepted: sign with RS256, RS384 or RS512');
  });

  it("refuses a key shorter than 2048 bits", async () => {
    const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const jwk = { ...(weak.publicKey.export({ format: "jwk" }) as JWK), kid: "weak" };
    const head = b64({ alg: "RS256", kid: "weak" });
    const body = b64({ metadata, exp: inAnHour() });
    const signature = createSign("RSA-SHA256").update(`${head}.${body}`).sign(weak.privateKey).toString("base64url");
    expect(await refusal(`${head}.${body}.${signature}`, { keys: [jwk] })).toBe('kid "weak" names a 1024-bit RSA key; keys must have at least 2048 bits');
  });

  it("refuses when the key's own alg or use does not fit", async () => {
    expect(await refusal(await sign(current, { alg: "RS512" }), { keys: [{ ...current.jwk, alg: "RS256" }] })).toBe(
      'kid "2026-11" names a key for "RS256", not RS512',
    );
    expect(await refusal(await sign(current), { keys: [{ ...current.jwk, use: "enc" }] })).toContain("not meant for signatures");
  });

  it("refuses a token without the metadata claim, garbage, and any token when the game has no JWKS", async () => {
    expect(await refusal(await sign(current, { claims: { player: { id: "p" } } }), jwks)).toBe("must carry the player metadata in the claim metadata");
    expect(await refusal("not-a-jwt", jwks)).toBe("is not a signed JWT (compact JWS)");
    expect(await refusal(await sign(current), undefined)).toBe("cannot be verified: the game has no public keys (JWKS) configured");
    expect(await refusal("x".repeat(20_000), jwks)).toContain("at most");
  });

  it("refuses a token whose payload was altered after signing", async () => {
    const [head, , signature] = (await sign(current)).split(".");
    const forged = b64({ metadata: { ...metadata, player: { id: "admin" } }, exp: inAnHour() });
    expect(await refusal(`${head}.${forged}.${signature}`, jwks)).toBe("has a signature that does not verify with the key named by kid");
  });

  it("measures RSA modulus lengths", async () => {
    expect(rsaModulusBits(current.jwk.n!)).toBe(2048);
    expect(rsaModulusBits(Buffer.from([0, 0x01, 0xff]).toString("base64url"))).toBe(9);
    expect(rsaModulusBits("")).toBe(0);
  });
});

describe("checkMetadataToken (the settings' test tool)", () => {
  it("answers the verification of verifyMetadataToken as a verdict with a reason", async () => {
    const key = await rsaKey("k-check");
    const other = await rsaKey("k-check");
    const jwks = { keys: [key.jwk] };
    const parse = (claim: unknown) => claim;
    const good = await checkMetadataToken(await sign(key), jwks, parse);
    expect(good).toMatchObject({ verified: true, kid: "k-check", metadata });
    expect((good as { expiresAt: Date }).expiresAt).toBeInstanceOf(Date);
    const reasons = [
      await checkMetadataToken(await sign(other), jwks, parse),
      await checkMetadataToken(await sign(key, { exp: Math.floor(Date.now() / 1000) - 600 }), jwks, parse),
      await checkMetadataToken(await sign(key, { kid: "nobody" }), jwks, parse),
      await checkMetadataToken("nope", jwks, parse),
      await checkMetadataToken(await sign(key), undefined, parse),
    ].map((verdict) => (verdict.verified ? "verified" : verdict.reason));
    expect(reasons).toEqual(["bad_signature", "expired", "unknown_kid", "malformed", "no_keys"]);
    // The message is the one a session request answers.
    const refused = await checkMetadataToken(await sign(other), jwks, parse);
    expect(refused).toMatchObject({ verified: false, message: await refusal(await sign(other), jwks) });
    // A claim the session rules refuse is not "verified".
    const badClaim = await checkMetadataToken(await sign(key), jwks, () => {
      throw validationError([{ path: "/signedMetadataToken", message: "claim metadata.player must be an object" }]);
    });
    expect(badClaim).toEqual({ verified: false, reason: "invalid_metadata", message: "claim metadata.player must be an object" });
  });
});
