import { describe, expect, it } from "vitest";
import { checkTarget, classifyAddress, isPublicAddress, urlProblem } from "./target.ts";

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

describe("addresses that carry or reach inside", () => {
  const loose = { allowHttp: false, allowPrivateTargets: true };
  const resolvingTo = (address: string) => (async () => [{ address, family: 6 }]) as never;

  it("judges IPv6 forms that embed an IPv4 address by it, or refuses them", () => {
    // IPv4-compatible (as URL and as the C library writes an AAAA record), IPv4-mapped,
    // IPv4-translated, NAT64 (well-known and local-use), 6to4 and Teredo forms of inside addresses.
    for (const address of [
      "::7f00:1", "::127.0.0.1", "::a00:1", "::10.0.0.1", "::808:808", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "::ffff:0:7f00:1",
      "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fe80::1%eth0",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    // A DNS64 resolver gives an IPv4-only host a NAT64 address: a public one is delivered to.
    expect(classifyAddress("64:ff9b::808:808")).toBe("public");
    expect(classifyAddress("::ffff:8.8.8.8")).toBe("public");
  });

  it("refuses them at registration and at delivery, whatever the name resolves to", async () => {
    for (const url of ["https://[::7f00:1]/", "https://[::127.0.0.1]/", "https://[::ffff:127.0.0.1]/", "https://[64:ff9b::a00:1]/", "https://[2002:7f00:1::1]/"]) {
      expect(await checkTarget(url, strict), url).toEqual({ ok: false, reason: "target resolves to a private address" });
    }
    for (const address of ["::127.0.0.1", "::7f00:1", "64:ff9b::a9fe:a9fe", "2001::1"]) {
      expect(await checkTarget("https://hook.example/", strict, resolvingTo(address)), address).toEqual({ ok: false, reason: "target resolves to a private address" });
    }
    expect(await checkTarget("https://hook.example/", strict, resolvingTo("64:ff9b::808:808"))).toMatchObject({ ok: true });
  });

  it("never allows link-local, metadata or tunnelled addresses, even with private targets allowed", async () => {
    const never = "target resolves to a link-local, metadata or tunnelled address (never allowed)";
    for (const address of ["169.254.169.254", "169.254.0.1", "100.100.100.200", "fe80::1", "fd00:ec2::254", "::ffff:169.254.169.254", "::7f00:1", "2002:7f00:1::1", "2001::1"]) {
      expect(classifyAddress(address), address).toBe("forbidden");
      expect(await checkTarget("https://hook.example/", loose, resolvingTo(address)), address).toEqual({ ok: false, reason: never });
    }
    expect(await checkTarget("https://169.254.169.254/latest/meta-data", loose)).toEqual({ ok: false, reason: never });
    expect(await checkTarget("https://[fd00:ec2::254]/", loose)).toEqual({ ok: false, reason: never });
    // Loopback and private addresses stay allowed for local use.
    for (const url of ["https://127.0.0.1:8443/", "https://[::1]/", "https://10.0.0.7/", "https://[::ffff:127.0.0.1]/"]) {
      expect(await checkTarget(url, loose), url).toMatchObject({ ok: true });
    }
  });
});
