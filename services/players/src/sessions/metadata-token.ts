// Verifies a game's `signedMetadataToken` against the game's JWKS and returns its
// `metadata` claim. Only asymmetric RSA signatures are accepted (RS256/RS384/RS512, keys of at
// least 2048 bits); the header must name the key in `kid`; `exp` is required. Every refusal is
// a 400 at `/signedMetadataToken` that says why, so a game developer can fix the signing side.
// checkMetadataToken answers the same verification as a verdict with a reason code, for the
// settings' test tool (no second verifier: both run verifyOrRefuse).
import { isAppError, validationError } from "@support/errors";
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK } from "jose";

export const ACCEPTED_ALGORITHMS = ["RS256", "RS384", "RS512"] as const;
export const MIN_RSA_KEY_BITS = 2048;
/** Larger tokens are refused before any parsing (a JWT with a metadata claim is a few KiB). */
export const MAX_TOKEN_LENGTH = 16_384;
/** Tolerated clock difference between the game's signing server and us, for `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** Why a token is refused, as a code a page can name. */
export type MetadataTokenRefusalReason =
  | "malformed" | "algorithm_not_accepted" | "no_keys" | "unknown_kid" | "unusable_key" | "bad_signature" | "expired" | "not_yet_valid" | "invalid_claims";

class MetadataTokenRefusal extends Error {
  readonly reason: MetadataTokenRefusalReason;
  constructor(reason: MetadataTokenRefusalReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const refuse = (message: string, reason: MetadataTokenRefusalReason) => new MetadataTokenRefusal(reason, message);
const asValidationError = (refusal: MetadataTokenRefusal) =>
  validationError([{ path: "/signedMetadataToken", message: refusal.message }], "The signed metadata token was refused");

/** Bit length of an RSA modulus given as the JWK member `n` (unsigned big-endian, base64url). */
export function rsaModulusBits(n: string): number {
  const bytes = Buffer.from(n, "base64url");
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  if (start === bytes.length) return 0;
  return (bytes.length - start - 1) * 8 + (32 - Math.clz32(bytes[start]!));
}

function keysOf(jwks: unknown): Record<string, unknown>[] {
  const keys = (jwks as { keys?: unknown } | null | undefined)?.keys;
  if (!Array.isArray(keys)) return [];
  return keys.filter((key): key is Record<string, unknown> => typeof key === "object" && key !== null && !Array.isArray(key));
}

/**
 * Verifies `token` with the key of `jwks` its header names and returns the `metadata` claim
 * (not yet checked for shape). `jwks` is the game's `{keys: [...]}`, or undefined when the game
 * has none (then every token is refused).
 */
export async function verifyMetadataToken(token: string, jwks: unknown, now: Date = new Date()): Promise<unknown> {
  try {
    return await verifyOrRefuse(token, jwks, now);
  } catch (error) {
    throw error instanceof MetadataTokenRefusal ? asValidationError(error) : error;
  }
}

export type MetadataTokenVerdict =
  | { verified: true; kid: string; expiresAt: Date; metadata: unknown }
  | { verified: false; reason: MetadataTokenRefusalReason | "invalid_metadata"; message: string };

/**
 * The verification of verifyMetadataToken as a verdict: verified (with the key's id, the
 * expiry and the claim metadata, read by `parseClaim`, e.g. parseSignedMetadataClaim, so that
 * "verified" means a session would accept it), or why not.
 */
export async function checkMetadataToken(token: string, jwks: unknown, parseClaim: (claim: unknown) => unknown, now: Date = new Date()): Promise<MetadataTokenVerdict> {
  let verified: Verified;
  try {
    verified = await verifyWithDetails(token, jwks, now);
  } catch (error) {
    if (error instanceof MetadataTokenRefusal) return { verified: false, reason: error.reason, message: error.message };
    throw error;
  }
  try {
    return { verified: true, kid: verified.kid, expiresAt: verified.expiresAt, metadata: parseClaim(verified.metadata) };
  } catch (error) {
    if (isAppError(error) && error.details?.issues) return { verified: false, reason: "invalid_metadata", message: error.details.issues.map((issue) => issue.message).join("; ") };
    throw error;
  }
}

async function verifyOrRefuse(token: string, jwks: unknown, now: Date): Promise<unknown> {
  return (await verifyWithDetails(token, jwks, now)).metadata;
}

interface Verified {
  kid: string;
  expiresAt: Date;
  metadata: unknown;
}

async function verifyWithDetails(token: string, jwks: unknown, now: Date): Promise<Verified> {
  if (token.length > MAX_TOKEN_LENGTH) throw refuse(`must be at most ${MAX_TOKEN_LENGTH} characters`, "malformed");
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw refuse("is not a signed JWT (compact JWS)", "malformed");
  }
  if (token.split(".").length !== 3) throw refuse("is not a signed JWT (compact JWS)", "malformed");
  const alg = header.alg;
  if (typeof alg !== "string" || !(ACCEPTED_ALGORITHMS as readonly string[]).includes(alg)) {
    throw refuse(`alg ${JSON.stringify(alg ?? null)} is not accepted: sign with RS256, RS384 or RS512`, "algorithm_not_accepted");
  }
  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") throw refuse("must name its key in the header parameter kid", "malformed");

  const keys = keysOf(jwks);
  if (keys.length === 0) throw refuse("cannot be verified: the game has no public keys (JWKS) configured", "no_keys");
  const matching = keys.filter((key) => key.kid === kid);
  if (matching.length === 0) throw refuse(`kid ${JSON.stringify(kid)} names no key of the game's JWKS`, "unknown_kid");
  if (matching.length > 1) throw refuse(`kid ${JSON.stringify(kid)} names more than one key of the game's JWKS`, "unusable_key");
  const jwk = matching[0]!;
  if (jwk.kty !== "RSA" || typeof jwk.n !== "string" || typeof jwk.e !== "string") throw refuse(`kid ${JSON.stringify(kid)} names a key that is not an RSA public key`, "unusable_key");
  if (jwk.use !== undefined && jwk.use !== "sig") throw refuse(`kid ${JSON.stringify(kid)} names a key not meant for signatures (use ${JSON.stringify(jwk.use)})`, "unusable_key");
  if (jwk.alg !== undefined && jwk.alg !== alg) throw refuse(`kid ${JSON.stringify(kid)} names a key for ${JSON.stringify(jwk.alg)}, not ${alg}`, "unusable_key");
  const bits = rsaModulusBits(jwk.n);
  if (bits < MIN_RSA_KEY_BITS) throw refuse(`kid ${JSON.stringify(kid)} names a ${bits}-bit RSA key; keys must have at least ${MIN_RSA_KEY_BITS} bits`, "unusable_key");

  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    // Only the public members: `key_ops`, `ext` and the like must not change what the key may do.
    key = await importJWK({ kty: "RSA", n: jwk.n, e: jwk.e } as JWK, alg);
  } catch {
    throw refuse(`kid ${JSON.stringify(kid)} names a key that cannot be read`, "unusable_key");
  }

  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [...ACCEPTED_ALGORITHMS],
      requiredClaims: ["exp"],
      currentDate: now,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    throw refusalOf(error);
  }
  if (!("metadata" in payload)) throw refuse("must carry the player metadata in the claim metadata", "invalid_claims");
  return { kid, expiresAt: new Date((payload.exp as number) * 1000), metadata: payload.metadata };
}

function refusalOf(error: unknown): MetadataTokenRefusal {
  if (error instanceof errors.JWTExpired) return refuse("has expired (exp)", "expired");
  if (error instanceof errors.JWSSignatureVerificationFailed) return refuse("has a signature that does not verify with the key named by kid", "bad_signature");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return refuse(`must hold the claim ${error.claim}`, "invalid_claims");
    if (error.claim === "nbf") return refuse("is not valid yet (nbf)", "not_yet_valid");
    return refuse(`has an invalid claim ${error.claim}: ${error.message}`, "invalid_claims");
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return refuse("uses an algorithm that is not accepted", "algorithm_not_accepted");
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return refuse(`is not a valid JWT: ${error.message}`, "malformed");
  return refuse("could not be verified", "malformed");
}
