// The OpenID Connect relying party (openid-client): discovery of a company's provider, the
// authorization URL (code flow, PKCE S256, state, nonce), and the code exchange with the ID
// token's checks (issuer, audience, signature, nonce) and the userinfo endpoint when the ID token
// carries no email. Discovered configurations are kept a few minutes per issuer and client.
import * as oidc from "openid-client";

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  loginHint?: string | undefined;
}

/** What the provider asserted about the user: the ID token's claims, email from userinfo when needed. */
export interface ProviderClaims {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  amr: unknown;
  acr: unknown;
}

export interface Client {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface OpenIdProviders {
  authorizationUrl(client: Client, request: AuthorizationRequest): Promise<string>;
  /** Throws when the provider's answer or tokens fail a check (a state, nonce or code refused). */
  exchange(client: Client, callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<ProviderClaims>;
}

const DISCOVERY_TTL_MS = 5 * 60_000;
/**
 * Seconds one request to a provider may take: the gateway gives a whole call to content a few
 * seconds (RPC_TIMEOUT_MS, 5 s by default), so a hung provider fails the sign-in rather than
 * hold the call past it.
 */
const PROVIDER_TIMEOUT_SECONDS = 4;

export const newState = (): string => oidc.randomState();
export const newNonce = (): string => oidc.randomNonce();
export const newCodeVerifier = (): string => oidc.randomPKCECodeVerifier();

export function createOpenIdProviders(): OpenIdProviders {
  const discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  const configurationOf = (client: Client): Promise<oidc.Configuration> => {
    const key = JSON.stringify([client.issuer, client.clientId, client.clientSecret]);
    const cached = discovered.get(key);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    // Plain http only for a loopback issuer (the configuration's rule), a developer's provider.
    const insecure = new URL(client.issuer).protocol === "http:";
    const config = oidc
      .discovery(new URL(client.issuer), client.clientId, client.clientSecret, undefined, {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .then((configuration) => {
        configuration.timeout = PROVIDER_TIMEOUT_SECONDS;
        return configuration;
      });
    discovered.set(key, { at: Date.now(), config });
    config.catch(() => discovered.delete(key));
    return config;
  };

  return {
    async authorizationUrl(client, request) {
      const config = await configurationOf(client);
      const parameters: Record<string, string> = {
        redirect_uri: request.redirectUri,
        response_type: "code",
        scope: "openid email profile",
        state: request.state,
        nonce: request.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: "S256",
      };
      if (request.loginHint) parameters.login_hint = request.loginHint;
      return oidc.buildAuthorizationUrl(config, parameters).href;
    },

    async exchange(client, callbackUrl, checks) {
      const config = await configurationOf(client);
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error("the provider returned no ID token");
      let profile: Record<string, unknown> = idClaims;
      if (typeof idClaims.email !== "string") profile = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      return {
        subject: idClaims.sub,
        email: typeof profile.email === "string" ? profile.email : undefined,
        emailVerified: profile.email_verified === true,
        name: typeof profile.name === "string" ? profile.name : undefined,
        amr: idClaims.amr,
        acr: idClaims.acr,
      };
    },
  };
}
