// Where a subscription may send: an https URL without credentials whose host resolves only to
// public unicast addresses (with WEBHOOK_ALLOW_PRIVATE_TARGETS, also private ones, but never
// link-local, metadata or tunnelled ones: see AddressClass). Checked when a URL is saved and
// again before every attempt, on every address the name resolves to; the connection then goes to the very addresses that were checked (see pinnedLookup), so a DNS
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
 * Where an address may be sent to: "public" always; "private" (loopback, private, shared/CGNAT,
 * unique-local, unspecified, multicast, reserved, ...) only with WEBHOOK_ALLOW_PRIVATE_TARGETS;
 * "forbidden" never, whatever the settings, because local use never needs it and it is what an
 * SSRF is after: link-local and cloud metadata addresses, and the IPv6 forms that carry an IPv4
 * address through a tunnel or translator.
 */
export type AddressClass = "public" | "private" | "forbidden";

// Cloud metadata and instance services outside 169.254/16 and fe80::/10: Alibaba Cloud's
// metadata address and the IPv6 prefix AWS puts its instance services under (metadata at
// fd00:ec2::254).
const METADATA_V4 = [ipaddr.parseCIDR("100.100.100.200/32")] as const;
const METADATA_V6 = [ipaddr.parseCIDR("fd00:ec2::/32")] as const;

// IPv6 forms whose last 32 bits are an IPv4 address a translator on the path connects to (the
// well-known NAT64 prefix, which a DNS64 resolver gives IPv4-only hosts, and IPv4-mapped
// addresses, which the socket itself turns into an IPv4 connection): judged as that address.
const EMBEDDING_V6 = [ipaddr.parseCIDR("64:ff9b::/96"), ipaddr.parseCIDR("::ffff:0:0/96")] as const;

// IPv6 forms that carry an IPv4 address through a tunnel, relay or translator no receiver needs:
// IPv4-compatible (::a.b.c.d, deprecated; :: and ::1 are judged on their own), IPv4-translated
// (::ffff:0:a.b.c.d), local-use NAT64 (64:ff9b:1::/48, where the IPv4 part's place depends on
// the operator's prefix), 6to4 (2002::/16) and Teredo (2001::/32). Refused whatever they carry.
const TUNNEL_V6 = [
  ipaddr.parseCIDR("::/96"),
  ipaddr.parseCIDR("::ffff:0:0:0/96"),
  ipaddr.parseCIDR("64:ff9b:1::/48"),
  ipaddr.parseCIDR("2002::/16"),
  ipaddr.parseCIDR("2001::/32"),
] as const;

function within(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][]): boolean {
  return ranges.some(([network, bits]) => address.kind() === network.kind() && address.match(network, bits));
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  // 169.254/16 holds the metadata address 169.254.169.254 of most clouds.
  if (address.range() === "linkLocal" || within(address, METADATA_V4)) return "forbidden";
  return address.range() === "unicast" ? "public" : "private";
}

function classifyIPv6(address: ipaddr.IPv6): AddressClass {
  if (address.range() === "linkLocal" || within(address, METADATA_V6)) return "forbidden";
  if (within(address, EMBEDDING_V6)) {
    const [a, b] = address.parts.slice(6) as [number, number];
    return classifyIPv4(new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff]));
  }
  const range = address.range();
  if (range === "unspecified" || range === "loopback") return "private";
  if (within(address, TUNNEL_V6)) return "forbidden";
  return range === "unicast" ? "public" : "private";
}

/**
 * An address's bytes. IPv6 text goes through the WHATWG URL parser, which reads every form
 * exactly and writes hex groups back: ipaddr.js reads "::a.b.c.d" (IPv4-compatible, the text
 * the C library gives such an AAAA record) as if it were "::ffff:a.b.c.d" (IPv4-mapped).
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    if (isIP(address) === 4) return ipaddr.IPv4.parse(address);
    if (isIP(address) === 6) return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    // A zone index ("fe80::1%eth0") or anything else the URL parser refuses: not an address we send to.
  }
  return undefined;
}

/**
 * Classifies an address (ipaddr.js names the special ranges; "unicast" is what is left), with
 * the IPv4 address an IPv6 form carries judged as that IPv4 address or refused. Anything that
 * is not an address is forbidden.
 */
export function classifyAddress(address: string): AddressClass {
  const parsed = parseAddress(address);
  if (parsed === undefined) return "forbidden";
  return parsed.kind() === "ipv4" ? classifyIPv4(parsed as ipaddr.IPv4) : classifyIPv6(parsed as ipaddr.IPv6);
}

/** Public unicast only: what a subscription may reach with the production settings. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

/** Why one of a target's addresses is refused under the policy, or undefined when all may be reached. */
function addressProblem(addresses: LookupAddress[], policy: TargetPolicy): string | undefined {
  const classes = addresses.map((a) => classifyAddress(a.address));
  if (!policy.allowPrivateTargets) return classes.every((c) => c === "public") ? undefined : "target resolves to a private address";
  return classes.includes("forbidden") ? "target resolves to a link-local, metadata or tunnelled address (never allowed)" : undefined;
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
  const refused = addressProblem(addresses, policy);
  if (refused) return { ok: false, reason: refused };
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
