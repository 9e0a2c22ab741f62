// Koa -> one Connect RPC (the gateway's client transport, libs/rpc) -> answer.
import Koa from "koa";
import { health } from "@support/proto";
import { createServiceClient } from "@support/rpc";

const client = createServiceClient(health.Health, process.env.ECHO_URL ?? "");
const app = new Koa();
app.use(async (ctx) => {
  const answer = await client.check({ service: "" });
  ctx.body = { status: answer.status };
});
app.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
// A normal exit on SIGTERM, so that a --cpu-prof (BENCH_CPU_PROF=1) profile gets written.
process.once("SIGTERM", () => process.exit(0));
