// Child process of destination.test.ts: logs some lines and ends before the batch interval has
// passed, either at once with process.exit ("exit") or by having nothing left to do
// ("natural"). The lines still held must be written on the way out.
import { createLogger } from "./index.ts";

const logger = createLogger({ service: "exit", level: "info" });
for (let i = 0; i < 3; i++) logger.info({ i }, "before exit");
if (process.argv[2] === "exit") process.exit(3);
