// Client-side balancing of service-to-service calls over every address of a service: one HTTP/2
// connection (one Connect transport) per address, round-robin over the addresses in rotation,
// addresses re-resolved periodically. One HTTP/2 connection carries every call of a client,
// so without this all calls of a process would stick to the one replica it connected to first.
import dns from "node:dns";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { Code, ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import { Http2SessionManager, createConnectTransport } from "@connectrpc/connect-node";
import { isDependencyUnavailable } from "./faults.ts";

/** Every address (IPv4 or IPv6 literal) a host name stands for; rejects when it cannot be resolved. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const DEFAULT_RESOLVE_INTERVAL_MS = 10_000;
export const DEFAULT_EJECT_MS = 5_000;

export interface BalancerOptions {
  /** How often the addresses are looked up again (a new replica gets calls within this). */
  resolveIntervalMs?: number;
  /** How long an address whose connection was refused or lost is left out of the rotation. */
  ejectMs?: number;
  /** The lookup of a host name; default: the system's (getaddrinfo, all addresses). */
  resolver?: Resolver;
  interceptors?: Interceptor[];
  defaultTimeoutMs?: number;
}

export interface AddressState {
  /** The address called, e.g. http://10.1.2.3:50052. */
  url: string;
  inFlight: number;
  /** Left out of the rotation for now (its connection failed). */
  ejected: boolean;
}

export interface BalancedTransport extends Transport {
  /** The addresses known right now, for health reports. */
  addresses(): AddressState[];
  /** Resolves once more now (the periodic lookup also runs on its own). */
  refresh(): Promise<void>;
  /** Stops the periodic lookup and closes every connection. */
  close(): void;
}

/** The system resolver: every address of the name (A and AAAA, /etc/hosts included). */
export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true });
  return found.map((entry) => entry.address);
};

/**
 * A resolver that first reads a hosts(5)-format file (`<address> <name> [<name>...]`, `#`
 * comments), again on every lookup, and asks `fallback` for names the file does not list: a
 * file-based discovery for runs without a DNS server that knows the replicas (several local
 * replicas on loopback addresses, a test adding one at run time).
 */
export function hostsFileResolver(file: string, fallback: Resolver = systemResolver): Resolver {
  return async (hostname) => {
    const text = await readFile(file, "utf8");
    const addresses: string[] = [];
    for (const line of text.split("\n")) {
      const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (address && net.isIP(address) && names.includes(hostname)) addresses.push(address);
    }
    return addresses.length > 0 ? addresses : fallback(hostname);
  };
}

interface Endpoint {
  url: string;
  transport: Transport;
  session: Http2SessionManager;
  inFlight: number;
  ejectedUntil: number;
  /** No longer resolved: closed once its last call ends. */
  removed: boolean;
}

function urlOf(protocol: string, address: string, port: string): string {
  return `${protocol}//${net.isIPv6(address) ? `[${address}]` : address}:${port}`;
}

/**
 * A Connect transport (h2c, binary) that spreads calls over every address of `target`:
 * `http://tickets:50052` (each address the name resolves to, on that port) or a comma-separated
 * list of such URLs (their addresses together). A name is looked up again every
 * `resolveIntervalMs`, and sooner after a connection fails: new addresses join the rotation,
 * vanished ones leave it and their connection closes once its calls have ended. An address
 * whose connection is refused or lost sits out `ejectMs`, so that the next calls go to the
 * others; when every address is out, all are tried again rather than failing without a call.
 */
export function createBalancedTransport(target: string, options: BalancerOptions = {}): BalancedTransport {
  const resolveIntervalMs = options.resolveIntervalMs ?? DEFAULT_RESOLVE_INTERVAL_MS;
  const ejectMs = options.ejectMs ?? DEFAULT_EJECT_MS;
  const resolver = options.resolver ?? systemResolver;
  const targets = target
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => new URL(part));
  if (targets.length === 0) throw new Error(`No address in "${target}"`);

  const endpoints = new Map<string, Endpoint>();
  /** The addresses each target resolved to last; a failed lookup keeps the previous ones. */
  const resolved = new Map<URL, string[]>();
  let rotation: Endpoint[] = [];
  let next = 0;
  let lastResolveAt = -Infinity;
  let resolving: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const createEndpoint = (url: string): Endpoint => {
    const session = new Http2SessionManager(url);
    const transport = createConnectTransport({
      baseUrl: url,
      httpVersion: "2",
      useBinaryFormat: true,
      // Uncompressed answers: between services on one network gzip costs both ends more CPU
      // (a 100-ticket list page is compressed by tickets and inflated by the gateway) than the
      // bytes it saves.
      acceptCompression: [],
      sessionManager: session,
      interceptors: options.interceptors ?? [],
      ...(options.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: options.defaultTimeoutMs }),
    });
    return { url, transport, session, inFlight: 0, ejectedUntil: 0, removed: false };
  };

  const resolveTarget = async (url: URL): Promise<string[]> => {
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const addresses = net.isIP(host) ? [host] : await resolver(host);
    return [...new Set(addresses)].map((address) => urlOf(url.protocol, address, port));
  };

  const resolveAll = async (): Promise<void> => {
    lastResolveAt = performance.now();
    const results = await Promise.allSettled(targets.map(resolveTarget));
    results.forEach((result, i) => {
      // An empty answer is kept too: the name exists and has no ready replica.
      if (result.status === "fulfilled") resolved.set(targets[i]!, result.value);
    });
    if (closed) return;
    const wanted = new Set([...resolved.values()].flat());
    for (const url of wanted) if (!endpoints.has(url)) endpoints.set(url, createEndpoint(url));
    for (const [url, endpoint] of endpoints) {
      if (wanted.has(url)) continue;
      endpoints.delete(url);
      endpoint.removed = true;
      if (endpoint.inFlight === 0) endpoint.session.abort();
    }
    rotation = [...endpoints.values()];
  };

  const refresh = (): Promise<void> => {
    resolving ??= resolveAll().finally(() => {
      resolving = undefined;
    });
    return resolving;
  };

  const pick = async (): Promise<Endpoint> => {
    if (closed) throw new ConnectError("The client is closed", Code.Unavailable);
    if (timer === undefined) {
      timer = setInterval(() => void refresh().catch(() => undefined), resolveIntervalMs);
      timer.unref();
    }
    if (resolved.size === 0) await refresh();
    if (rotation.length === 0) throw new ConnectError(`No address of ${target} is known`, Code.Unavailable);
    const now = performance.now();
    const ready = rotation.filter((endpoint) => endpoint.ejectedUntil <= now);
    const candidates = ready.length > 0 ? ready : rotation;
    next = (next + 1) % candidates.length;
    return candidates[next]!;
  };

  const release = (endpoint: Endpoint): void => {
    endpoint.inFlight -= 1;
    if (endpoint.removed && endpoint.inFlight === 0) endpoint.session.abort();
  };

  const noteFailure = (endpoint: Endpoint, error: unknown): void => {
    // Only a failed connection says something about the address; a service's answer (even
    // `unavailable` because its database is down) does not.
    if (!(error instanceof ConnectError) || error.code !== Code.Unavailable || !isDependencyUnavailable(error)) return;
    endpoint.ejectedUntil = performance.now() + ejectMs;
    // The replica may be gone for good (scaled down, rescheduled): look again, at most once a second.
    if (performance.now() - lastResolveAt >= 1000) void refresh().catch(() => undefined);
  };

  async function* releasing<T>(endpoint: Endpoint, messages: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* messages;
    } catch (error) {
      noteFailure(endpoint, error);
      throw error;
    } finally {
      release(endpoint);
    }
  }

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const endpoint = await pick();
      endpoint.inFlight += 1;
      try {
        return await endpoint.transport.unary(method, signal, timeoutMs, header, input, contextValues);
      } catch (error) {
        noteFailure(endpoint, error);
        throw error;
      } finally {
        release(endpoint);
      }
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const endpoint = await pick();
      endpoint.inFlight += 1;
      let response;
      try {
        response = await endpoint.transport.stream(method, signal, timeoutMs, header, input, contextValues);
      } catch (error) {
        noteFailure(endpoint, error);
        release(endpoint);
        throw error;
      }
      return { ...response, message: releasing(endpoint, response.message) };
    },
    addresses() {
      const now = performance.now();
      return rotation.map((endpoint) => ({ url: endpoint.url, inFlight: endpoint.inFlight, ejected: endpoint.ejectedUntil > now }));
    },
    refresh,
    close() {
      closed = true;
      clearInterval(timer);
      for (const endpoint of endpoints.values()) endpoint.session.abort();
      endpoints.clear();
      rotation = [];
    },
  };
}

/** The balancing settings of a service's configuration (RPC_RESOLVE_INTERVAL_MS, RPC_HOSTS_FILE). */
export function balancingOf(config: { RPC_RESOLVE_INTERVAL_MS: number; RPC_HOSTS_FILE: string }): Pick<BalancerOptions, "resolveIntervalMs" | "resolver"> {
  return {
    resolveIntervalMs: config.RPC_RESOLVE_INTERVAL_MS,
    resolver: config.RPC_HOSTS_FILE === "" ? systemResolver : hostsFileResolver(config.RPC_HOSTS_FILE),
  };
}
