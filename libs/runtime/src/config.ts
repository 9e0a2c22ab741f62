// Settings every internal service reads, with safe local defaults.
import { listenPort, num, str } from "@support/config";

export const serviceConfigSpecs = {
  // Loopback unless told otherwise: a process started on a workstation is not reachable from the
  // network by accident; the Kubernetes manifests set 0.0.0.0.
  HOST: str({ default: "127.0.0.1", desc: "Address the RPC port binds to (0.0.0.0: every interface, as in a cluster)" }),
  DATABASE_URL: str({ default: "postgres://postgres@127.0.0.1:5432/support", desc: "Postgres connection URL" }),
  DB_POOL_MAX: num({ default: 10, desc: "Connections in the service's pool" }),
  DB_READ_LANE_MAX: num({
    default: 2,
    desc: "Connections kept apart for reads (RPC methods without side effects), taken when every pooled connection is in use; 0: none",
  }),
  DB_PREPARED_STATEMENTS_MAX: num({
    default: 256,
    desc: "Most statement texts Postgres parses and plans once per connection (named statements); 0: none (a pooler in transaction mode)",
  }),
  NATS_URL: str({ default: "nats://127.0.0.1:4222", desc: "NATS servers, comma-separated" }),
  NATS_PREFIX: str({ default: "", desc: "Prefix of subjects and stream names (isolates environments sharing a NATS)" }),
  NATS_STREAM_REPLICAS: num({
    default: 1,
    choices: [1, 2, 3, 4, 5],
    desc: "JetStream replicas of the service's stream (3 on a clustered NATS); a change is applied to the stream at the next start",
  }),
  LOG_LEVEL: str({ default: "info", choices: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] }),
  SHUTDOWN_TIMEOUT_MS: num({ default: 10_000, desc: "Longest graceful shutdown before exiting anyway" }),
  ...metricsConfigSpecs(),
  ...serviceIdentityConfigSpecs(),
};

/** Settings of a process that calls internal services: how their addresses are found. */
export const rpcClientConfigSpecs = {
  RPC_RESOLVE_INTERVAL_MS: num({
    default: 10_000,
    desc: "How often the addresses of each internal service are looked up again; calls are balanced over all of them",
  }),
  RPC_HOSTS_FILE: str({
    default: "",
    desc: "A hosts-format file (address name...) read before DNS at every lookup of a service's name; empty: DNS only",
  }),
};

/** Where the process serves GET /metrics (Prometheus): its own listener, never the public port. */
export function metricsConfigSpecs() {
  return {
    METRICS_HOST: str({ default: "127.0.0.1", desc: "Address the metrics listener (GET /metrics, Prometheus) binds to (0.0.0.0 in a cluster, for the scraper)" }),
    METRICS_PORT: listenPort({ default: 9464, desc: "Port of the metrics listener (GET /metrics); 0: any free port (tests)" }),
  };
}

/**
 * The process's service identity (see @support/rpc identity.ts): its own Ed25519 private key and
 * the public keys of the callers it trusts, each inline or from a file. Without them a production
 * process refuses to start, and a development one trusts only its own process.
 */
export function serviceIdentityConfigSpecs() {
  return {
    NODE_ENV: str({ default: "development", desc: "production requires the service identity keys (and makes other settings stricter)" }),
    SERVICE_IDENTITY_KEY: str({ default: "", desc: "The process's own Ed25519 private key (PKCS#8 PEM) its calls are signed with (a Kubernetes Secret)" }),
    SERVICE_IDENTITY_KEY_FILE: str({ default: "", desc: "File holding SERVICE_IDENTITY_KEY, read when that is unset" }),
    SERVICE_IDENTITY_TRUST: str({ default: "", desc: 'Trusted public keys per caller, JSON {"<service>": ["<base64url Ed25519 key>", ...]} (several while rotating)' }),
    SERVICE_IDENTITY_TRUST_FILE: str({ default: "", desc: "File holding SERVICE_IDENTITY_TRUST, read when that is unset" }),
  };
}

/** The listening port spec with a per-service default (content 50051, tickets 50052, ...). */
export function portSpec(defaultPort: number) {
  return listenPort({ default: defaultPort, desc: "Port serving Connect, gRPC, gRPC-Web, /healthz and /readyz" });
}

/** The token of the admin RPCs (tools/admin); unset, they refuse every call. */
export const adminTokenSpec = str({ default: "", desc: "Bearer token the admin RPCs require (a Kubernetes Secret); unset, they refuse every call" });
