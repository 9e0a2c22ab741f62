import { describe, expect, it } from "vitest";
import { checkTarget, isPublicAddress, urlProblem } from "./target.ts";

const strict = { allowHttp: false, allowPrivateTargets: false };

describe("target rules", () => {
  it("accepts public unicast addresses only", () => {
    for (const address of ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"]) expect(isPublicAddress(address)).toBe(true);
    for (const address of [
      "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
      "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not-an-ip",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("wants https without credentials unless http is allowed", () => {
    expect(urlProblem("http://example.com/", strict)).toBe("must be an https URL");
    expect(urlProblem("http://example.com/", { ...strict, allowHttp: true })).toBeUndefined();
    expect(urlProblem("https://a:b@example.com/", strict)).toBe("must not carry credentials");
    expect(urlProblem("https://a@example.com/", strict)).toBe("must not carry credentials");
    expect(urlProblem("example.com", strict)).toBe("must be an absolute URL");
    expect(urlProblem(`https://example.com/${"a".repeat(2048)}`, strict)).toBe("must be at most 2048 characters");
  });

  it("refuses a name when any of its addresses is private", async () => {
    const resolve = (async () => [{ address: "93.184.215.14", family: 4 }, { address: "10.0.0.7", family: 4 }]) as never;
    expect(await checkTarget("https://mixed.example/", strict, resolve)).toEqual({ ok: false, reason: "target resolves to a private address" });
    const publicOnly = (async () => [{ address: "93.184.215.14", family: 4 }]) as never;
    expect(await checkTarget("https://public.example/", strict, publicOnly)).toMatchObject({ ok: true, addresses: [{ address: "93.184.215.14" }] });
    expect(await checkTarget("https://[::1]:8443/", strict)).toEqual({ ok: false, reason: "target resolves to a private address" });
    expect(await checkTarget("https://[::1]:8443/", { ...strict, allowPrivateTargets: true })).toMatchObject({ ok: true, addresses: [{ address: "::1", family: 6 }] });
  });
});
