// Signed player metadata as a game's backend makes it (D8): an RS256 key pair published in the
// game's JWKS, and `signedMetadataToken`s signed with it, for the tests of sessions and of what
// a verified session may read.
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK } from "jose";

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function signingKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  return { kid, privateJwk: await exportJWK(privateKey), publicJwk: { ...(await exportJWK(publicKey)), kid, use: "sig" } };
}

export interface SignOptions {
  alg?: "RS256" | "RS384" | "RS512";
  kid?: string;
  /** A jose time span ("5m", "-1h") or null for no exp. */
  exp?: string | null;
}

export async function signMetadata(key: SigningKey, metadata: unknown, options: SignOptions = {}): Promise<string> {
  const alg = options.alg ?? "RS256";
  const jwt = new SignJWT({ metadata }).setProtectedHeader({ alg, kid: options.kid ?? key.kid }).setIssuedAt();
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? "5m");
  // A WebCrypto key is bound to one hash: import the private key for the algorithm wanted.
  return jwt.sign((await importJWK({ ...key.privateJwk, alg: undefined }, alg)) as CryptoKey);
}
