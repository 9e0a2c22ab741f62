// Two-factor on the door: the short-lived cookie that carries the challenge between a right
// password and the code (named and flagged like the session cookie, but SameSite=Strict and five
// minutes long), and the QR code of an enrolment, drawn here as an SVG data URL so that the
// secret never goes to a third-party host.
import QRCode from "qrcode";
import type { SessionCookieSettings } from "./cookie.ts";
import { readCookie } from "./cookie.ts";

export const SECURE_CHALLENGE_COOKIE = "__Host-support_2fa";
export const LOOPBACK_CHALLENGE_COOKIE = "support_2fa";

/** The challenge cookie beside a session cookie: the same prefix and Secure rule. */
export function challengeCookieFor(session: SessionCookieSettings): SessionCookieSettings {
  return { name: session.secure ? SECURE_CHALLENGE_COOKIE : LOOPBACK_CHALLENGE_COOKIE, secure: session.secure };
}

function attributes(cookie: SessionCookieSettings, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly${cookie.secure ? "; Secure" : ""}; SameSite=Strict`;
}

export function challengeSetCookie(cookie: SessionCookieSettings, challenge: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${challenge}; ${attributes(cookie, Math.max(1, Math.floor(maxAgeSeconds)))}`;
}

export function challengeClearCookie(cookie: SessionCookieSettings): string {
  return `${cookie.name}=; ${attributes(cookie, 0)}`;
}

const plausibleChallenge = /^[A-Za-z0-9_-]{16,512}$/;

/** The challenge the request carries; undefined for none or garbage. */
export function challengeOf(header: string | undefined, cookie: SessionCookieSettings): string | undefined {
  const value = readCookie(header, cookie.name);
  return value !== undefined && plausibleChallenge.test(value) ? value : undefined;
}

/** The otpauth:// URI as a QR code: `data:image/svg+xml;base64,...`. */
export async function qrCodeDataUrl(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`;
}
