// GET /healthz and GET /readyz: 200 only when every internal service answers its
// grpc.health.v1 Check with SERVING. Checks run in parallel with a short deadline, and the
// result is shared for a second so that probes (or a probe storm) cost at most one round
// of RPCs per second. Answers name services only, never addresses.
import { health } from "@support/proto";
import type { GatewayClients, ServiceName } from "./clients.ts";
import { SERVICE_NAMES } from "./clients.ts";
import type { GatewayMiddleware, GatewayRouter } from "./types.ts";

export type ServiceHealth = "ok" | "unavailable";

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

export function registerHealthRoutes(router: GatewayRouter, checker: HealthChecker, isStopping: () => boolean): void {
  const answer: GatewayMiddleware = async (ctx) => {
    const report = await checker.check();
    const ok = report.ok && !isStopping();
    ctx.set("Cache-Control", "no-store");
    if (ok) {
      ctx.body = { status: "ok", services: report.services };
      return;
    }
    const failed = SERVICE_NAMES.filter((name) => report.services[name] !== "ok");
    ctx.status = 503;
    ctx.body = {
      code: "unavailable",
      message: failed.length > 0 ? `Unavailable: ${failed.join(", ")}` : "The gateway is shutting down",
      status: "unavailable",
      services: report.services,
    };
  };
  router.get("/healthz", answer);
  router.get("/readyz", answer);
}
