import { describe, expect, it } from "vitest";
import { sessionCookieFor } from "./cookie.ts";
import { appAddressOf, appPageUrl, signInPageUrl, ssoAttemptOf, ssoClearCookie, ssoCookieFor, ssoErrorCodeOf, ssoSetCookie } from "./single-sign-on.ts";

describe("the single sign-on attempt cookie", () => {
  it("is __Host- and Secure beside the session cookie, SameSite=Lax so that it comes back with the provider's redirect", () => {
    const cookie = ssoCookieFor(sessionCookieFor("https://support.example.com"));
    expect(ssoSetCookie(cookie, "t".repeat(43), 600)).toBe(`__Host-support_sso=${"t".repeat(43)}; Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax`);
    expect(ssoClearCookie(cookie)).toBe("__Host-support_sso=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax");
    expect(ssoCookieFor(sessionCookieFor("http://127.0.0.1:8080")).name).toBe("support_sso");
  });

  it("is read only under the origin's name and only when it looks like a token", () => {
    const cookie = ssoCookieFor(sessionCookieFor("https://support.example.com"));
    expect(ssoAttemptOf(`a=b; __Host-support_sso=${"A".repeat(43)}`, cookie)).toBe("A".repeat(43));
    expect(ssoAttemptOf(`support_sso=${"A".repeat(43)}`, cookie)).toBeUndefined();
    expect(ssoAttemptOf("__Host-support_sso=short", cookie)).toBeUndefined();
    expect(ssoAttemptOf(`__Host-support_sso=${"A".repeat(40)}%00`, cookie)).toBeUndefined();
  });
});

describe("where single sign-on lands", () => {
  it("is a page of the application's address: SUPPORT_APP_URL, else the console at /app of the origin", () => {
    expect(appAddressOf("https://support.example.com/app/", "https://ignored.example")).toBe("https://support.example.com/app");
    expect(appAddressOf("https://support.example.com", "https://ignored.example")).toBe("https://support.example.com");
    expect(appAddressOf("", "http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/app");
    expect(appPageUrl("https://support.example.com/app", "/tickets/7?tab=log")).toBe("https://support.example.com/app/tickets/7?tab=log");
    expect(appPageUrl("https://support.example.com/app", "@evil.example")).toBe("https://support.example.com/app/");
  });

  it("after a refusal, is the application's sign-in page with one of three error codes", () => {
    expect(signInPageUrl("https://support.example.com/app", { error: ssoErrorCodeOf("invalid_state") })).toBe("https://support.example.com/app/sign-in?error=sso_invalid_state");
    expect(ssoErrorCodeOf("provider_error")).toBe("sso_provider_error");
    expect(ssoErrorCodeOf("refused")).toBe("sso_refused");
    expect(ssoErrorCodeOf(undefined)).toBe("sso_refused");
    expect(signInPageUrl("https://support.example.com/app", { step: "two_factor", next: "/tickets?a=1" })).toBe("https://support.example.com/app/sign-in?step=two_factor&next=%2Ftickets%3Fa%3D1");
  });
});
