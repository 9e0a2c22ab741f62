// Verifies a game's `signedMetadataToken` against the game's JWKS and returns its
// `metadata` claim. Only asymmetric RSA signatures are accepted (RS256/RS384/RS512, keys of at
// least 2048 bits); the header must name the key in `kid`; `exp` is required. Every refusal is
// a 400 at `/signedMetadataToken` that says why, so a game developer can fix the signing side.
import { validationError } from "@support/errors";
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type JWK } from "jose";

export const ACCEPTED_ALGORITHMS = ["RS256", "RS384", "RS512"] as const;
export const MIN_RSA_KEY_BITS = 2048;
/** Larger tokens are refused before any parsing (a JWT with a metadata claim is a few KiB). */
export const MAX_TOKEN_LENGTH = 16_384;
/** Tolerated clock difference between the game's signing server and us, for `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

const refuse = (message: string) => validationError([{ path: "/signedMetadataToken", message }], "The signed metadata token was refused");

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
  if (token.length > MAX_TOKEN_LENGTH) throw refuse(`must be at most ${MAX_TOKEN_LENGTH} characters`);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw refuse("is not a signed JWT (compact JWS)");
  }
  if (token.split(".").length !== 3) throw refuse("is not a signed JWT (compact JWS)");
  const alg = header.alg;
  if (typeof alg !== "string" || !(ACCEPTED_ALGORITHMS as readonly string[]).includes(alg)) {
    throw refuse(`alg ${JSON.stringify(alg ?? null)} is not accepted: sign with RS256, RS384 or RS512`);
  }
  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") throw refuse("must name its key in the header parameter kid");

  const keys = keysOf(jwks);
  if (keys.length === 0) throw refuse("cannot be verified: the game has no public keys (JWKS) configured");
  const matching = keys.filter((key) => key.kid === kid);
  if (matching.length === 0) throw refuse(`kid ${JSON.stringify(kid)} names no key of the game's JWKS`);
  if (matching.length > 1) throw refuse(`kid ${JSON.stringify(kid)} names more than one key of the game's JWKS`);
  const jwk = matching[0]!;
  if (jwk.kty !== "RSA" || typeof jwk.n !== "string" || typeof jwk.e !== "string") throw refuse(`kid ${JSON.stringify(kid)} names a key that is not an RSA public key`);
  if (jwk.use !== undefined && jwk.use !== "sig") throw refuse(`kid ${JSON.stringify(kid)} names a key not meant for signatures (use ${JSON.stringify(jwk.use)})`);
  if (jwk.alg !== undefined && jwk.alg !== alg) throw refuse(`kid ${JSON.stringify(kid)} names a key for ${JSON.stringify(jwk.alg)}, not ${alg}`);
  const bits = rsaModulusBits(jwk.n);
  if (bits < MIN_RSA_KEY_BITS) throw refuse(`kid ${JSON.stringify(kid)} names a ${bits}-bit RSA key; keys must have at least ${MIN_RSA_KEY_BITS} bits`);

  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    // Only the public members: `key_ops`, `ext` and the like must not change what the key may do.
    key = await importJWK({ kty: "RSA", n: jwk.n, e: jwk.e } as JWK, alg);
  } catch {
    throw refuse(`kid ${JSON.stringify(kid)} names a key that cannot be read`);
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
    throw refuse(reasonOf(error));
  }
  if (!("metadata" in payload)) throw refuse("must carry the player metadata in the claim metadata");
  return payload.metadata;
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "has expired (exp)";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "has a signature that does not verify with the key named by kid";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return `must hold the claim ${error.claim}`;
    if (error.claim === "nbf") return "is not valid yet (nbf)";
    return `has an invalid claim ${error.claim}: ${error.message}`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "uses an algorithm that is not accepted";
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return `is not a valid JWT: ${error.message}`;
  return "could not be verified";
}
