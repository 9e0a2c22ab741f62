// The operators' key directory: init, rotation with two trusted keys, retirement.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IDENTITY_NAMES, createServiceCaller, loadServiceVerifier, publicKeyOf } from "@support/rpc";
import { TRUST_FILE, initIdentities, keyFile, retireIdentities, rotateIdentities } from "./service-identity.ts";

const trustOf = (dir: string) => JSON.parse(readFileSync(join(dir, TRUST_FILE), "utf8")) as Record<string, string[]>;
const key = (dir: string, name: (typeof IDENTITY_NAMES)[number]) => readFileSync(keyFile(dir, name), "utf8");

describe("scripts/service-identity.ts", () => {
  it("creates a private key per process and the trust of their public keys; init again changes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "identity-"));
    initIdentities(dir);
    for (const name of IDENTITY_NAMES) {
      expect(statSync(keyFile(dir, name)).mode & 0o777).toBe(0o600);
      expect(trustOf(dir)[name]).toEqual([publicKeyOf(key(dir, name))]);
    }
    const before = readFileSync(join(dir, TRUST_FILE), "utf8");
    initIdentities(dir);
    expect(readFileSync(join(dir, TRUST_FILE), "utf8")).toBe(before);
  });

  it("rotates: both keys are trusted until the old one is retired", () => {
    const dir = mkdtempSync(join(tmpdir(), "identity-"));
    initIdentities(dir);
    const oldKey = key(dir, "gateway");
    rotateIdentities(dir, ["gateway"]);
    const newKey = key(dir, "gateway");
    expect(newKey).not.toBe(oldKey);
    expect(trustOf(dir).gateway).toEqual([publicKeyOf(oldKey), publicKeyOf(newKey)]);
    const settings = { NODE_ENV: "production", SERVICE_IDENTITY_KEY: key(dir, "content"), SERVICE_IDENTITY_TRUST_FILE: join(dir, TRUST_FILE) };
    const during = loadServiceVerifier("content", settings).verifier;
    expect(during.check(createServiceCaller("gateway", oldKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    expect(during.check(createServiceCaller("gateway", newKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
    retireIdentities(dir);
    expect(trustOf(dir).gateway).toEqual([publicKeyOf(newKey)]);
    const after = loadServiceVerifier("content", settings).verifier;
    expect(after.check(createServiceCaller("gateway", oldKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(false);
    expect(after.check(createServiceCaller("gateway", newKey).tokenFor("content"), "content.v1.ContentService").ok).toBe(true);
  });
});
