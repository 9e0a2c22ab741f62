// The gateway's health endpoints. /healthz (liveness) and /readyz (readiness) depend on the
// gateway's own state only: it listens, its configuration and caches are set up, it is not
// stopping. A service being down makes only the routes that need it answer 503 (its breaker
// opens), so it must not take the whole gateway out of rotation. GET /healthz/dependencies
// reports every service for humans and monitors: its grpc.health.v1 Check, its breaker and
// how many addresses are known. The Checks run in parallel with a short deadline and their
// result is shared for a second, so that a monitor storm costs at most one round of RPCs per
// second. Answers name services only, never addresses.
import { health } from "@support/proto";
import type { BackendState, GatewayClients, ServiceName } from "./clients.ts";
import { SERVICE_NAMES } from "./clients.ts";
import type { GatewayMiddleware, GatewayRouter } from "./types.ts";

export type ServiceHealth = "ok" | "unavailable";

export interface DependencyReport {
  /** The service's own grpc.health.v1 answer. */
  status: ServiceHealth;
  /** closed: calls go through; open: its routes answer 503 at once; half-open: one trial call. */
  breaker: "closed" | "open" | "half-open" | "unknown";
  /** Addresses the service resolved to, and how many of them are out of rotation after failing. */
  addresses: { known: number; ejected: number };
}

export interface HealthReport {
  ok: boolean;
  services: Record<ServiceName, ServiceHealth>;
}

export interface HealthChecker {
  check(): Promise<HealthReport>;
}

export function createHealthChecker(clients: GatewayClients["health"], options: { timeoutMs: number; cacheMs: number }): HealthChecker {
  let last: { at: number; report: Promise<HealthReport> } | undefined;
  const checkOne = async (name: ServiceName): Promise<ServiceHealth> => {
    try {
      const response = await clients[name].check({ service: "" }, { timeoutMs: options.timeoutMs });
      return response.status === health.HealthCheckResponse_ServingStatus.SERVING ? "ok" : "unavailable";
    } catch {
      return "unavailable";
    }
  };
  const run = async (): Promise<HealthReport> => {
    const results = await Promise.all(SERVICE_NAMES.map(checkOne));
    const services = Object.fromEntries(SERVICE_NAMES.map((name, i) => [name, results[i]])) as Record<ServiceName, ServiceHealth>;
    return { ok: results.every((result) => result === "ok"), services };
  };
  return {
    check() {
      const now = performance.now();
      // A running check is shared too: `at` is when it started.
      if (last === undefined || now - last.at >= options.cacheMs) last = { at: now, report: run() };
      return last.report;
    },
  };
}

export interface GatewayStatus {
  /** The port listens and everything the routes need of the gateway itself is set up. */
  isStarted(): boolean;
  isStopping(): boolean;
}

export function registerHealthRoutes(
  router: GatewayRouter,
  checker: HealthChecker,
  backends: Record<ServiceName, BackendState> | undefined,
  status: GatewayStatus,
): void {
  // Liveness: the process answers HTTP. Failing it would restart the gateway, which cures
  // nothing a backend outage causes.
  router.get("/healthz", (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", (ctx) => {
    ctx.set("Cache-Control", "no-store");
    if (status.isStarted() && !status.isStopping()) {
      ctx.body = { status: "ok" };
      return;
    }
    ctx.status = 503;
    ctx.set("Retry-After", "1");
    ctx.body = {
      code: "unavailable",
      message: status.isStopping() ? "The gateway is shutting down" : "The gateway is starting",
      status: "unavailable",
    };
  });
  const dependencies: GatewayMiddleware = async (ctx) => {
    const report = await checker.check();
    const services = Object.fromEntries(
      SERVICE_NAMES.map((name): [ServiceName, DependencyReport] => {
        const addresses = backends?.[name].addresses() ?? [];
        return [
          name,
          {
            status: report.services[name],
            breaker: backends?.[name].breakerState() ?? "unknown",
            addresses: { known: addresses.length, ejected: addresses.filter((address) => address.ejected).length },
          },
        ];
      }),
    ) as Record<ServiceName, DependencyReport>;
    ctx.set("Cache-Control", "no-store");
    const failed = SERVICE_NAMES.filter((name) => services[name].status !== "ok" || services[name].breaker === "open");
    if (failed.length === 0) {
      ctx.body = { status: "ok", services };
      return;
    }
    // 503 so that a plain HTTP monitor alerts; the gateway itself stays ready.
    ctx.status = 503;
    ctx.body = { code: "unavailable", message: `Unavailable: ${failed.join(", ")}`, status: "degraded", services };
  };
  router.get("/healthz/dependencies", dependencies);
}
