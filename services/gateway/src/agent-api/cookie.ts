// The support application's session cookie: which origin the application has, the cookie's
// name and flags for that origin, and reading and writing it. Written by hand: Koa's cookies
// refuse a Secure cookie on the plain-http socket a TLS-terminating proxy connects with.
export const SECURE_SESSION_COOKIE = "__Host-support_session";
/** The name on a developer's machine: a `__Host-` cookie must be Secure, which plain http cannot set. */
export const LOOPBACK_SESSION_COOKIE = "support_session";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The support application's origin for a request: SUPPORT_APP_URL's when configured, else the
 * request's own `http://<Host>` (the gateway itself only speaks plain http; behind a TLS proxy
 * SUPPORT_APP_URL must be set, or no state-changing request passes the Origin check).
 * Undefined when there is neither (a request without a usable Host).
 */
export function appOriginOf(supportAppUrl: string, host: string | undefined): string | undefined {
  if (supportAppUrl !== "") return new URL(supportAppUrl).origin;
  if (!host || !URL.canParse(`http://${host}`)) return undefined;
  const url = new URL(`http://${host}`);
  // A Host with a path, credentials or a query is not a host.
  return url.host === host.toLowerCase() ? url.origin : undefined;
}

export interface SessionCookieSettings {
  name: string;
  secure: boolean;
}

/**
 * `__Host-support_session`, Secure, unless the application's origin is plain http on a
 * loopback address: then `support_session` without Secure (a browser keeps no Secure cookie
 * from http). Any other http origin keeps Secure, so the browser drops the cookie: a
 * misconfiguration fails closed.
 */
export function sessionCookieFor(appOrigin: string | undefined): SessionCookieSettings {
  if (appOrigin !== undefined) {
    const url = new URL(appOrigin);
    if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return { name: LOOPBACK_SESSION_COOKIE, secure: false };
  }
  return { name: SECURE_SESSION_COOKIE, secure: true };
}

/** The value of the first cookie called `name` in a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether a Cookie header carries a support application session cookie (either name). */
export function hasSessionCookie(header: string | undefined): boolean {
  return readCookie(header, SECURE_SESSION_COOKIE) !== undefined || readCookie(header, LOOPBACK_SESSION_COOKIE) !== undefined;
}

// Tokens are content's (base64url of random bytes); anything else is refused without asking it.
const plausibleToken = /^[A-Za-z0-9._~+/-]{16,512}=*$/;

/** The session token the request carries under the cookie name of its origin; undefined for none or garbage. */
export function sessionTokenOf(header: string | undefined, cookie: SessionCookieSettings): string | undefined {
  const value = readCookie(header, cookie.name);
  return value !== undefined && plausibleToken.test(value) ? value : undefined;
}

function attributes(cookie: SessionCookieSettings, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly${cookie.secure ? "; Secure" : ""}; SameSite=Lax`;
}

/** Set-Cookie for a new session: it lives as long as the session can (its absolute end). */
export function sessionSetCookie(cookie: SessionCookieSettings, token: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${token}; ${attributes(cookie, Math.max(1, Math.floor(maxAgeSeconds)))}`;
}

/** Set-Cookie that removes the session cookie. */
export function sessionClearCookie(cookie: SessionCookieSettings): string {
  return `${cookie.name}=; ${attributes(cookie, 0)}`;
}
