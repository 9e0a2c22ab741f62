// Service identities for a test run that starts the platform's processes apart (child
// processes, containers): a fresh Ed25519 key per process and the trust naming their public
// keys, in the format of @support/rpc's identity.ts (PKCS#8 PEM private keys; trust JSON of
// base64url raw public keys). Made with node:crypto here because @support/rpc's own tests
// depend on this package. Services started in the test's own process need none: a development
// process without keys trusts its own calls.
import { generateKeyPairSync } from "node:crypto";

export const IDENTITY_PROCESSES = ["gateway", "content", "tickets", "media", "players", "webhooks", "email", "admin"] as const;
export type IdentityProcess = (typeof IDENTITY_PROCESSES)[number];

export interface TestServiceIdentities {
  /** The trust every service gets (SERVICE_IDENTITY_TRUST). */
  trust: string;
  /**
   * The environment of one process: its own key and the trust; `trusted` keeps only those
   * processes in the trust (an earlier release refuses a trust naming a process it does not know).
   */
  env(name: IdentityProcess, trusted?: readonly string[]): { SERVICE_IDENTITY_KEY: string; SERVICE_IDENTITY_TRUST: string };
}

export function createTestServiceIdentities(): TestServiceIdentities {
  const keys = new Map<IdentityProcess, string>();
  const trust: Record<string, string[]> = {};
  for (const name of IDENTITY_PROCESSES) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    keys.set(name, privateKey.export({ format: "pem", type: "pkcs8" }).toString());
    trust[name] = [publicKey.export({ format: "jwk" }).x!];
  }
  const trustJson = JSON.stringify(trust);
  const trustOf = (trusted: readonly string[]) => JSON.stringify(Object.fromEntries(Object.entries(trust).filter(([name]) => trusted.includes(name))));
  return {
    trust: trustJson,
    env: (name, trusted) => ({ SERVICE_IDENTITY_KEY: keys.get(name)!, SERVICE_IDENTITY_TRUST: trusted === undefined ? trustJson : trustOf(trusted) }),
  };
}
