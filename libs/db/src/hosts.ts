// Several Postgres hosts in one DATABASE_URL, as libpq takes them: a primary and its standbys,
// `postgres://user@db-a:5432,db-b:5432/support?target_session_attrs=read-write`. node-postgres
// connects to one host only, so this does what libpq does for that URL: every new connection
// goes to the host that accepts writes, found by trying the hosts in order (a host that does not
// answer within the connect timeout, or answers `pg_is_in_recovery()` true, is skipped), and
// remembered until a connection to it fails or finds it read-only (a promoted standby took
// over, the old primary came back as a standby). Connections the pool holds to a server that
// went away break and are dropped as with a single host; one that finds its server read-only
// (SQLSTATE 25006, the old primary restarted as a standby) is ended and dropped too. A URL with
// one host is left to node-postgres as it is.
import pg from "pg";

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface MultiHostUrl {
  hosts: DatabaseHost[];
  /** The same URL naming only `host` (without target_session_attrs, which node-postgres does not know). */
  urlFor(host: DatabaseHost): string;
}

/** SQLSTATEs after which the server a connection reached no longer takes writes. */
const READ_ONLY = new Set([
  "25006", // read_only_sql_transaction: a standby, or the old primary restarted as one
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up, shutting down, in recovery
]);

/**
 * The hosts of a URL naming more than one (`host1:port1,host2:port2`), or undefined for a URL
 * with one host (or not a URL). `target_session_attrs` may be `read-write` (what every service
 * needs) or `primary`; anything else is refused, since the services write.
 */
export function parseMultiHostUrl(url: string): MultiHostUrl | undefined {
  const match = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(url);
  if (!match) return undefined;
  const [, scheme, userinfo = "", hostList, rest = ""] = match as unknown as [string, string, string | undefined, string, string | undefined];
  if (!hostList.includes(",")) return undefined;
  const hosts = hostList.split(",").map((entry) => {
    const found = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim());
    if (!found) throw new Error(`DATABASE_URL: cannot read the host "${entry}"`);
    return { host: found[1]!.replace(/^\[|\]$/g, ""), port: found[2] ? Number(found[2]) : 5432 };
  });
  const [path, query = ""] = rest.split("?", 2) as [string, string | undefined];
  const params = new URLSearchParams(query);
  const attrs = params.get("target_session_attrs");
  if (attrs !== null && attrs !== "read-write" && attrs !== "primary") {
    throw new Error(`DATABASE_URL: target_session_attrs=${attrs} is not supported; the services need a server that takes writes (read-write)`);
  }
  params.delete("target_session_attrs");
  const tail = params.size > 0 ? `${path}?${params.toString()}` : path;
  return {
    hosts,
    urlFor: (host) => `${scheme}${userinfo}${host.host.includes(":") ? `[${host.host}]` : host.host}:${host.port}${tail}`,
  };
}

/** The error of a connection attempt that found no host taking writes. */
export class NoWritableHostError extends Error {
  readonly code = "57P03"; // cannot_connect_now: callers and readiness treat it as an outage
  constructor(tried: string[]) {
    super(`no Postgres host accepts writes (tried ${tried.join("; ")})`);
  }
}

/**
 * Finds and remembers the host that takes writes. `find()` answers the remembered one, or tries
 * the hosts in order (one search at a time, shared by every caller); `forget()` makes the next
 * `find()` search again.
 */
export class WritableHost {
  #current: DatabaseHost | undefined;
  #search: Promise<DatabaseHost> | undefined;
  readonly #url: MultiHostUrl;
  readonly #connectTimeoutMs: number;

  constructor(url: MultiHostUrl, connectTimeoutMs: number) {
    this.#url = url;
    this.#connectTimeoutMs = connectTimeoutMs;
  }

  get current(): DatabaseHost | undefined {
    return this.#current;
  }

  find(): Promise<DatabaseHost> {
    if (this.#current) return Promise.resolve(this.#current);
    this.#search ??= this.#searchHosts().finally(() => (this.#search = undefined));
    return this.#search;
  }

  /** The remembered host failed (a connection to it broke or found it read-only). */
  forget(host?: DatabaseHost): void {
    if (!host || (this.#current && this.#current.host === host.host && this.#current.port === host.port)) this.#current = undefined;
  }

  async #searchHosts(): Promise<DatabaseHost> {
    const tried: string[] = [];
    for (const host of this.#url.hosts) {
      const client = new pg.Client({ connectionString: this.#url.urlFor(host), connectionTimeoutMillis: this.#connectTimeoutMs });
      client.on("error", () => undefined); // the probe's own outcome is all that matters
      try {
        await client.connect();
        const { rows } = await client.query<{ standby: boolean }>("select pg_is_in_recovery() as standby");
        if (!rows[0]?.standby) {
          this.#current = host;
          return host;
        }
        tried.push(`${host.host}:${host.port} is a standby`);
      } catch (error) {
        tried.push(`${host.host}:${host.port}: ${(error as Error).message}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new NoWritableHostError(tried);
  }
}

/**
 * A pg.Client class whose connections go to the host `writable` finds: it sets the host and
 * port before connecting, makes `writable` search again when the connection fails or finds the
 * server read-only, and ends a connection whose query fails with one of READ_ONLY's codes (the
 * pool then drops it).
 */
export function writableClientClass(writable: WritableHost): typeof pg.Client {
  return class WritableHostClient extends pg.Client {
    #target: DatabaseHost | undefined;

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const connected = (async () => {
        const target = await writable.find();
        this.#target = target;
        // Read when the connection opens (node-postgres' Client#_connect): set before it.
        const self = this as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
        self.host = self.connectionParameters.host = target.host;
        self.port = self.connectionParameters.port = target.port;
        try {
          await super.connect();
          const { rows } = await super.query<{ standby: boolean }>("select pg_is_in_recovery() as standby");
          if (rows[0]?.standby) throw new NoWritableHostError([`${target.host}:${target.port} is a standby now`]);
        } catch (error) {
          writable.forget(target);
          await this.end().catch(() => undefined);
          throw error;
        }
        return this as pg.Client;
      })();
      if (!callback) return connected;
      const done = callback as (err: Error | null, c?: pg.Client) => void;
      connected.then(
        (client) => done(null, client),
        (error: Error) => done(error),
      );
    }

    // Every query form goes through here (kysely, the prepared statements, pg-pool).
    override query(...args: unknown[]): never {
      const result = (super.query as (...a: unknown[]) => unknown).apply(this, args);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          const code = (error as { code?: unknown })?.code;
          if (typeof code === "string" && READ_ONLY.has(code)) {
            writable.forget(this.#target);
            // Ended: the pool drops it when it comes back, instead of lending it again.
            void this.end().catch(() => undefined);
          }
        });
      }
      return result as never;
    }
  };
}
