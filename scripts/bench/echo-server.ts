// One RPC hop's far side: an RPC server (libs/rpc) answering grpc.health.v1 Check.
import { Writable } from "node:stream";
import { createLogger } from "@support/logging";
import { createRpcServer } from "@support/rpc";

const logger = createLogger({ service: "echo", destination: new Writable({ write: (_c, _e, done) => done() }) });
const server = createRpcServer({
  serviceName: "echo", logger, routes: () => undefined, isReady: async () => true,
  host: "127.0.0.1", port: Number(process.env.PORT),
});
await server.start();
process.send?.("ready");
// A normal exit on SIGTERM, so that a --cpu-prof (BENCH_CPU_PROF=1) profile gets written.
process.once("SIGTERM", () => process.exit(0));
