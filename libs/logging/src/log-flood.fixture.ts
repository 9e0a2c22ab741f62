// Child process of destination.test.ts: floods a logger whose stderr nobody reads, reports its
// retained heap on stdout, and once stdin ends (the test reads stderr again) logs one more line.
import { createLogger } from "./index.ts";

const LINES = Number(process.argv[2]);
const logger = createLogger({ service: "flood", level: "info", maxBufferBytes: Number(process.argv[3]) });
const gc = (globalThis as { gc?: () => void }).gc!;

gc();
const before = process.memoryUsage().heapUsed;
const padding = "x".repeat(1000);
for (let i = 0; i < LINES; i++) logger.info({ i, padding }, "flood");
gc();
process.stdout.write(`${JSON.stringify({ retainedBytes: process.memoryUsage().heapUsed - before })}\n`);

process.stdin.resume();
process.stdin.on("end", () => {
  // Wait until what was kept is written, then one line that fits again (the notice follows it).
  logger.flush(() => {
    logger.info("after");
    logger.flush(() => process.exit(0));
  });
});
