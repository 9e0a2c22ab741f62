// The service identity keys of a deployment, kept in one directory: `<process>.key` (the
// process's Ed25519 private key, PKCS#8 PEM; a Secret per process in a cluster) and
// `trust.json` (every process's public keys, what each service gets as SERVICE_IDENTITY_TRUST).
// `make up` keeps the local stack's in .data/service-identity; operators use it for a cluster
// (deploy/README.md, "Service identity"):
//
//   pnpm exec node scripts/service-identity.ts init <dir>             keys for every process missing one; trust.json lists them
//   pnpm exec node scripts/service-identity.ts rotate <dir> <name>... new keys for these; their old public keys stay trusted
//   pnpm exec node scripts/service-identity.ts retire <dir>           trust.json keeps only the current keys' public keys
//
// Nothing is printed but file names: private keys never go to the terminal or a log.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IDENTITY_NAMES, generateIdentityKey, publicKeyOf, type IdentityName } from "@support/rpc";

export const TRUST_FILE = "trust.json";

export function keyFile(dir: string, name: IdentityName): string {
  return join(dir, `${name}.key`);
}

function readTrust(dir: string): Record<string, string[]> {
  const file = join(dir, TRUST_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, string[]>) : {};
}

function writeKey(dir: string, name: IdentityName): void {
  writeFileSync(keyFile(dir, name), generateIdentityKey().privateKey, { mode: 0o600 });
  // A key file that existed keeps its old mode through writeFileSync: make it private anyway.
  chmodSync(keyFile(dir, name), 0o600);
}

/** trust.json: per process, the keys listed so far (`keep`) plus the public key of its current key file. */
function writeTrust(dir: string, keep: Record<string, string[]>): void {
  const trust: Record<string, string[]> = {};
  for (const name of IDENTITY_NAMES) {
    const current = publicKeyOf(readFileSync(keyFile(dir, name), "utf8"));
    trust[name] = [...new Set([...(keep[name] ?? []), current])];
  }
  writeFileSync(join(dir, TRUST_FILE), `${JSON.stringify(trust, null, 2)}\n`);
}

/** Creates the keys missing in `dir` and a trust naming every current key (keys already trusted stay). */
export function initIdentities(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of IDENTITY_NAMES) if (!existsSync(keyFile(dir, name))) writeKey(dir, name);
  writeTrust(dir, readTrust(dir));
}

/** New keys for `names`; the trust lists the old and the new public keys until retire. */
export function rotateIdentities(dir: string, names: readonly IdentityName[]): void {
  const trust = readTrust(dir);
  for (const name of names) writeKey(dir, name);
  writeTrust(dir, trust);
}

/** The trust keeps only the public keys of the current key files. */
export function retireIdentities(dir: string): void {
  writeTrust(dir, {});
}

function usage(): never {
  process.stderr.write("usage: service-identity.ts init <dir> | rotate <dir> <name>... | retire <dir>\n");
  process.exit(2);
}

if (import.meta.main) {
  const [command, dir, ...names] = process.argv.slice(2);
  if (!dir) usage();
  const unknown = names.filter((name) => !(IDENTITY_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown process: ${unknown.join(", ")} (one of ${IDENTITY_NAMES.join(", ")})\n`);
    process.exit(2);
  }
  if (command === "init" && names.length === 0) initIdentities(dir);
  else if (command === "rotate" && names.length > 0) rotateIdentities(dir, names as IdentityName[]);
  else if (command === "retire" && names.length === 0) retireIdentities(dir);
  else usage();
  process.stdout.write(`${[...IDENTITY_NAMES.map((name) => keyFile(dir, name)), join(dir, TRUST_FILE)].join("\n")}\n`);
}
