import { describe, expect, it } from "vitest";
import { emailDomainAllowed, isIssuerUrl, parseSingleSignOn, providerAssertedMfa, publicReason, safeReturnTo } from "./single-sign-on.ts";

describe("a company's single sign-on settings", () => {
  const valid = { issuer: "https://login.example.com/tenant", clientId: "support", clientSecretKey: "acme" };

  it("are completed with the defaults: no just-in-time users, any email domain", () => {
    expect(parseSingleSignOn(valid)).toEqual({ ...valid, allowJustInTimeUsers: false, emailDomains: [] });
    expect(parseSingleSignOn({ ...valid, emailDomains: ["Acme.Example", "acme.example", "games.acme.example"] }).emailDomains).toEqual(["acme.example", "games.acme.example"]);
  });

  it("name the secret's key, never a path, and an https issuer", () => {
    for (const clientSecretKey of ["", "../content-db/DATABASE_URL", "/etc/passwd", "a/b", ".hidden", "..", "a b"]) {
      expect(() => parseSingleSignOn({ ...valid, clientSecretKey }), clientSecretKey).toThrow();
    }
    expect(parseSingleSignOn({ ...valid, clientSecretKey: "acme_prod.v2-1" }).clientSecretKey).toBe("acme_prod.v2-1");
    expect(() => parseSingleSignOn({ ...valid, issuer: "http://login.example.com" })).toThrow();
    expect(() => parseSingleSignOn({ ...valid, emailDomains: ["not a domain"] })).toThrow();
    expect(isIssuerUrl("http://127.0.0.1:4000")).toBe(true);
    expect(isIssuerUrl("https://login.example.com/?tenant=1")).toBe(false);
  });
});

describe("the path the browser lands on", () => {
  it("stays on the application: a path with a single leading slash", () => {
    expect(safeReturnTo("")).toBe("/");
    expect(safeReturnTo("/tickets?view=mine#top")).toBe("/tickets?view=mine#top");
    for (const value of ["//evil.example", "/\\evil.example", "https://evil.example/", "tickets", "/a//b", "/a\nb"]) expect(safeReturnTo(value), value).toBeUndefined();
  });
});

describe("the provider's second factor", () => {
  it("is asserted by amr mfa, otp or hwk, or a multi-factor or phishing-resistant acr; not by a password", () => {
    expect(providerAssertedMfa({ amr: ["pwd", "otp"] })).toBe(true);
    expect(providerAssertedMfa({ amr: ["mfa"] })).toBe(true);
    expect(providerAssertedMfa({ amr: ["hwk"] })).toBe(true);
    expect(providerAssertedMfa({ acr: "http://schemas.openid.net/pape/policies/2007/06/multi-factor" })).toBe(true);
    expect(providerAssertedMfa({ acr: "phrh" })).toBe(true);
    expect(providerAssertedMfa({ amr: ["pwd"], acr: "urn:password" })).toBe(false);
    expect(providerAssertedMfa({ amr: "mfa" })).toBe(false);
    expect(providerAssertedMfa({})).toBe(false);
  });
});

describe("refusals", () => {
  it("tell the browser only whether the state, the provider or the account was the problem", () => {
    expect(publicReason("invalid_state")).toBe("invalid_state");
    expect(publicReason("secret_missing")).toBe("provider_error");
    expect(publicReason("no_user")).toBe("refused");
    expect(publicReason("email_of_another_company")).toBe("refused");
  });

  it("of an email domain only when the company lists domains", () => {
    expect(emailDomainAllowed({ emailDomains: [] }, "a@anything.example")).toBe(true);
    expect(emailDomainAllowed({ emailDomains: ["acme.example"] }, "a@ACME.example")).toBe(true);
    expect(emailDomainAllowed({ emailDomains: ["acme.example"] }, "a@sub.acme.example")).toBe(false);
  });
});
