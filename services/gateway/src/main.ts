// Process entry: tracing, configuration, clients, NATS, server, signals.
import { connectBus } from "@support/bus";
import { createLogger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { runUntilSignal } from "@support/runtime";
import { startTracing } from "@support/tracing";
import { createClients } from "./clients.ts";
import { loadGatewayConfig } from "./config.ts";
import { createServer } from "./server.ts";

// First, before any connection: the SDK is registered (when OTEL_* asks for it) before the
// clients it traces exist.
const tracing = await startTracing({ serviceName: "gateway" });
const config = loadGatewayConfig();
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });
if (tracing.enabled) logger.info({ endpoint: tracing.endpoint }, "exporting traces over OTLP");

await runUntilSignal(async () => {
  const nc = await connectBus(config.NATS_URL, "gateway", logger);
  const registry = createMetricsRegistry();
  const clients = createClients(config, registry);
  const server = createServer({ config, logger, clients, nc, registry });
  await server.start();
  return {
    // The host stops taking requests, finishes the running ones and lets go of NATS; then the
    // clients close and the spans still buffered are exported.
    async stop() {
      await server.stop();
      clients.close?.();
      await tracing.shutdown();
    },
  };
}, logger, config.SHUTDOWN_TIMEOUT_MS);
