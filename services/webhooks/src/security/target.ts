// Where a subscription may send: an https URL without credentials whose host resolves only to
// public unicast addresses. Checked when a URL is saved and again before every attempt; the
// connection then goes to the very addresses that were checked (see pinnedLookup), so a DNS
// answer that changes between the check and the connection (rebinding) cannot reach inside.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivateTargets: boolean;
}

export type TargetCheck = { ok: true; url: URL; addresses: LookupAddress[] } | { ok: false; reason: string };

export const MAX_URL_LENGTH = 2048;

/** The URL's own rules, without DNS: what a request body can be refused for at once. */
export function urlProblem(raw: string, policy: TargetPolicy): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && !(policy.allowHttp && url.protocol === "http:")) return policy.allowHttp ? "must be an http or https URL" : "must be an https URL";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  if (url.hostname === "") return "must name a host";
  return undefined;
}

/**
 * Public unicast only: ipaddr.js names every special range (loopback, private, linkLocal, which
 * holds the cloud metadata address 169.254.169.254, carrierGradeNat, uniqueLocal, multicast,
 * unspecified, reserved, 6to4/teredo tunnels, ...) and "unicast" is what is left.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  return ipaddr.process(address).range() === "unicast";
}

function bareHost(url: URL): string {
  // IPv6 literals come bracketed in URL.hostname.
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

export async function checkTarget(raw: string, policy: TargetPolicy, resolve: typeof dnsLookup = dnsLookup): Promise<TargetCheck> {
  const problem = urlProblem(raw, policy);
  if (problem) return { ok: false, reason: `URL ${problem}` };
  const url = new URL(raw);
  const host = bareHost(url);
  let addresses: LookupAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolve(host, { all: true, verbatim: true });
    } catch {
      return { ok: false, reason: "target host does not resolve" };
    }
    if (addresses.length === 0) return { ok: false, reason: "target host does not resolve" };
  }
  if (!policy.allowPrivateTargets && addresses.some((a) => !isPublicAddress(a.address))) {
    return { ok: false, reason: "target resolves to a private address" };
  }
  return { ok: true, url, addresses };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for the socket that answers with the checked addresses only. */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}
