// The process side of a long-running service: start, then stop cleanly on SIGINT/SIGTERM
// (bounded by a timeout), and exit non-zero on a failed start or an unexpected crash.
import type { Logger } from "@support/logging";

export interface Stoppable {
  stop(): Promise<void>;
}

export async function runUntilSignal(start: () => Promise<Stoppable>, logger: Logger, shutdownTimeoutMs = 10_000): Promise<void> {
  let running: Stoppable;
  try {
    running = await start();
  } catch (error) {
    logger.fatal({ err: error }, "failed to start");
    logger.flush?.();
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("graceful shutdown timed out");
      process.exit(1);
    }, shutdownTimeoutMs);
    timer.unref();
    try {
      await running.stop();
      logger.info("stopped");
      logger.flush?.();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "error during shutdown");
      process.exit(1);
    }
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection"));
}
