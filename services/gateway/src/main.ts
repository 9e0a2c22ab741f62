// Process entry: configuration, clients, NATS, server, signals.
import { connectBus } from "@support/bus";
import { createLogger } from "@support/logging";
import { createMetricsRegistry } from "@support/metrics";
import { runUntilSignal } from "@support/runtime";
import { createClients } from "./clients.ts";
import { loadGatewayConfig } from "./config.ts";
import { createServer } from "./server.ts";

const config = loadGatewayConfig();
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });

await runUntilSignal(async () => {
  const nc = await connectBus(config.NATS_URL, "gateway", logger);
  const registry = createMetricsRegistry();
  const server = createServer({ config, logger, clients: createClients(config, registry), nc, registry });
  await server.start();
  return {
    // Stop taking requests and finish the running ones, then let go of NATS.
    async stop() {
      await server.stop();
      if (!nc.isClosed()) await nc.drain();
    },
  };
}, logger, config.SHUTDOWN_TIMEOUT_MS);
