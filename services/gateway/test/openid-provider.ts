// A real OpenID provider (oidc-provider) for end-to-end tests of single sign-on, on 127.0.0.1 with
// a port of its own. One confidential client (code flow, PKCE required). Its interaction
// approves at once: it signs in the account the test chose for the next login (with the `amr`
// and `acr` the test wants asserted) and grants the scopes asked for. `follow` plays the
// browser on the provider's side: it follows the redirects with the provider's cookies until
// the provider sends the browser back to the relying party.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface NextLogin {
  accountId: string;
  amr?: string[];
  acr?: string;
}

export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, ProviderAccount>;
  /** Who the next login signs in. */
  nextLogin(login: NextLogin): void;
  /**
   * Follows redirects from `url` (the authorization request) through the provider, with a
   * fresh cookie jar, until one leads outside the provider; answers that address.
   */
  follow(url: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startOpenIdProvider(options: { redirectUri: string; clientSecret: string }): Promise<TestOpenIdProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The exact host the relying party discovers with: 127.0.0.1, never localhost.
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, ProviderAccount>();
  let next: NextLogin | undefined;
  const clientId = "support-test-client";

  // A signing key of this run (the provider's built-in one is for its quick start only).
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "test", use: "sig", alg: "RS256" }] },
    clients: [{ client_id: clientId, client_secret: options.clientSecret, redirect_uris: [options.redirectUri], grant_types: ["authorization_code"], response_types: ["code"] }],
    pkce: { required: () => true },
    cookies: { keys: ["a test provider's cookie key, not a secret"] },
    // amr and acr in every ID token, as the usual providers send them (by default this one sends
    // them only when the client asks for them).
    claims: { openid: ["sub", "amr", "acr"], email: ["email", "email_verified"], profile: ["name"] },
    acrValues: ["urn:test:password", "phr"],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
  });
  const callback = provider.callback();

  handler = (req, res) => {
    if (!req.url?.startsWith("/interaction/")) {
      callback(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === "login") {
        if (!next) throw new Error("the test set no next login");
        const { accountId, amr, acr } = next;
        await provider.interactionFinished(req, res, { login: { accountId, ...(amr ? { amr } : {}), ...(acr ? { acr } : {}) } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  };

  return {
    issuer,
    clientId,
    clientSecret: options.clientSecret,
    accounts,
    nextLogin(login) {
      next = login;
    },
    async follow(url) {
      const jar = new Map<string, string>();
      let location = url;
      for (let hop = 0; hop < 20; hop++) {
        if (!location.startsWith(`${issuer}/`)) return location;
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
        const answer = await fetch(location, { redirect: "manual", headers: cookie ? { cookie } : {} });
        for (const line of answer.headers.getSetCookie()) {
          const [pair, ...attributes] = line.split(";");
          const eq = pair!.indexOf("=");
          const name = pair!.slice(0, eq).trim();
          const value = pair!.slice(eq + 1).trim();
          const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
          if (expired || value === "") jar.delete(name);
          else jar.set(name, value);
        }
        const next = answer.headers.get("location");
        if (!next) throw new Error(`the provider answered ${answer.status} without a redirect at ${location}: ${await answer.text()}`);
        await answer.body?.cancel();
        location = new URL(next, location).href;
      }
      throw new Error("too many redirects at the provider");
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
