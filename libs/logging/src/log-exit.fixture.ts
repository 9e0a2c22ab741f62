// Child process of destination.test.ts: logs some lines and exits at once, before the batch
// interval has passed; the lines still held must be written on the way out.
import { createLogger } from "./index.ts";

const logger = createLogger({ service: "exit", level: "info" });
for (let i = 0; i < 3; i++) logger.info({ i }, "before exit");
process.exit(Number(process.argv[2] ?? 0));
