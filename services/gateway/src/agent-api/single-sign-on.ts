// Single sign-on on the door: the short-lived cookie that binds an attempt to the browser between
// the redirect to the company's OpenID provider and its callback (named and flagged like the
// session cookie; SameSite=Lax, not Strict, because the callback is a navigation from the
// provider's site and a Strict cookie would not come with it), and where the browser goes after:
// a page of the support application (the console), or its sign-in page with an error code.
import type { SessionCookieSettings } from "./cookie.ts";
import { readCookie } from "./cookie.ts";

export const SECURE_SSO_COOKIE = "__Host-support_sso";
export const LOOPBACK_SSO_COOKIE = "support_sso";

/** The callback registered at every company's provider, under the application's origin. */
export const SSO_CALLBACK_PATH = "/agent-api/sso/callback";
/** The console's sign-in page, below the application's address: refusals land there with `?error=`. */
export const SIGN_IN_PAGE = "/sign-in";
/** Where the gateway serves the console, on the application's origin, when SUPPORT_APP_URL is empty. */
export const CONSOLE_PATH = "/app";

/** What the sign-in page is told when single sign-on did not open a session. */
export type SsoErrorCode = "sso_invalid_state" | "sso_provider_error" | "sso_refused";

export function ssoCookieFor(session: SessionCookieSettings): SessionCookieSettings {
  return { name: session.secure ? SECURE_SSO_COOKIE : LOOPBACK_SSO_COOKIE, secure: session.secure };
}

function attributes(cookie: SessionCookieSettings, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly${cookie.secure ? "; Secure" : ""}; SameSite=Lax`;
}

export function ssoSetCookie(cookie: SessionCookieSettings, attemptToken: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${attemptToken}; ${attributes(cookie, Math.max(1, Math.floor(maxAgeSeconds)))}`;
}

export function ssoClearCookie(cookie: SessionCookieSettings): string {
  return `${cookie.name}=; ${attributes(cookie, 0)}`;
}

const plausibleAttempt = /^[A-Za-z0-9_-]{16,512}$/;

/** The attempt token the request carries; undefined for none or garbage. */
export function ssoAttemptOf(header: string | undefined, cookie: SessionCookieSettings): string | undefined {
  const value = readCookie(header, cookie.name);
  return value !== undefined && plausibleAttempt.test(value) ? value : undefined;
}

/** The content's public refusal reason as the sign-in page's error code. */
export function ssoErrorCodeOf(reason: unknown): SsoErrorCode {
  if (reason === "invalid_state") return "sso_invalid_state";
  if (reason === "provider_error") return "sso_provider_error";
  return "sso_refused";
}

/**
 * The support application's address, without a trailing slash: SUPPORT_APP_URL when configured
 * (e.g. https://support.example.com/app), else the console the gateway serves at /app on the
 * application's origin.
 */
export function appAddressOf(supportAppUrl: string, appOrigin: string): string {
  if (supportAppUrl === "") return `${appOrigin}${CONSOLE_PATH}`;
  const url = new URL(supportAppUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * A page of the application: `path` is one of its own paths (content checked it when the
 * attempt began: a single leading slash, no "//" or backslash), so the page stays on the
 * application's origin.
 */
export function appPageUrl(appAddress: string, path: string): string {
  return `${appAddress}${path.startsWith("/") ? path : "/"}`;
}

/** The sign-in page with an error code, or with `step=two_factor` (and where to go next) when a code is awaited. */
export function signInPageUrl(appAddress: string, query: { error: SsoErrorCode } | { step: "two_factor"; next: string }): string {
  return `${appAddress}${SIGN_IN_PAGE}?${new URLSearchParams(query).toString()}`;
}
